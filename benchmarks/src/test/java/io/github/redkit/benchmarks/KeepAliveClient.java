package io.github.redkit.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

import io.github.redkit.testsupport.RedisServer;

/**
 * One HTTP/1.1 connection kept open, sending {@code GET} requests one after the other and
 * reading each answer whole on the calling thread, so that a measurement of the server's
 * threads can leave the client out by leaving out one thread: an HTTP client library
 * would allocate on threads of its own.
 */
final class KeepAliveClient implements AutoCloseable {

	private static final byte[] HEADERS_END = { '\r', '\n', '\r', '\n' };

	private final int port;

	private Socket socket;

	private OutputStream out;

	private InputStream in;

	private final byte[] buffer = new byte[16 * 1024];

	KeepAliveClient(int port) {
		this.port = port;
		open();
	}

	private void open() {
		try {
			this.socket = new Socket(RedisServer.HOST, this.port);
			this.socket.setTcpNoDelay(true);
			// longer than a decision may take (RequestAllocationTests gives it 30 s): a
			// server's first request on a machine at load 33 took more than 10 s
			this.socket.setSoTimeout(60_000);
			this.out = this.socket.getOutputStream();
			this.in = this.socket.getInputStream();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Sends a {@code GET} with the headers every endpoint of {@link HttpApp} reads, and
	 * reads its answer.
	 * @param path the path
	 * @param id the {@code X-Id} header
	 * @param seq the {@code X-Seq} header
	 * @return the answer's head (status line and fields)
	 */
	String get(String path, String id, String seq) {
		String request = "GET " + path + " HTTP/1.1\r\nHost: localhost\r\nX-Id: " + id + "\r\nX-Seq: " + seq
				+ "\r\n\r\n";
		try {
			this.out.write(request.getBytes(StandardCharsets.US_ASCII));
			this.out.flush();
			String head = readAnswer();
			if (head.toLowerCase(Locale.ROOT).contains("\r\nconnection: close")) {
				close();
				open();
			}
			return head;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	// the head, then as many body bytes as Content-Length says
	private String readAnswer() throws IOException {
		int read = 0;
		int headEnd = -1;
		while (headEnd < 0) {
			int n = this.in.read(this.buffer, read, this.buffer.length - read);
			if (n < 0) {
				throw new IOException("The server closed the connection after " + read + " bytes");
			}
			read += n;
			headEnd = indexOf(this.buffer, read, HEADERS_END);
		}
		String head = new String(this.buffer, 0, headEnd, StandardCharsets.US_ASCII);
		long body = contentLength(head);
		long left = body - (read - headEnd - HEADERS_END.length);
		while (left > 0) {
			int n = this.in.read(this.buffer, 0, (int) Math.min(this.buffer.length, left));
			if (n < 0) {
				throw new IOException("The server closed the connection in a body");
			}
			left -= n;
		}
		return head;
	}

	private static long contentLength(String head) {
		for (String line : head.split("\r\n")) {
			int colon = line.indexOf(':');
			if (colon > 0 && line.substring(0, colon).trim().toLowerCase(Locale.ROOT).equals("content-length")) {
				return Long.parseLong(line.substring(colon + 1).trim());
			}
		}
		throw new IllegalStateException("An answer without Content-Length: " + head);
	}

	private static int indexOf(byte[] bytes, int length, byte[] part) {
		for (int i = 0; i + part.length <= length; i++) {
			boolean found = true;
			for (int j = 0; j < part.length && found; j++) {
				found = bytes[i + j] == part[j];
			}
			if (found) {
				return i;
			}
		}
		return -1;
	}

	@Override
	public void close() {
		try {
			this.socket.close();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
