package io.github.redkit.testsupport;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A minimal blocking RESP2 client used to start, probe and inspect test servers without
 * going through the client library under test.
 */
public final class RespClient implements AutoCloseable {

	private final Socket socket;

	private final InputStream in;

	private final OutputStream out;

	private RespClient(Socket socket) throws IOException {
		this.socket = socket;
		this.in = new BufferedInputStream(socket.getInputStream());
		this.out = socket.getOutputStream();
	}

	/**
	 * Connects to a Redis server.
	 * @param host the host
	 * @param port the port
	 * @param timeout connect and read timeout
	 * @return a connected client
	 */
	public static RespClient connect(String host, int port, Duration timeout) {
		Socket socket = new Socket();
		try {
			socket.connect(new InetSocketAddress(host, port), (int) timeout.toMillis());
			socket.setSoTimeout((int) timeout.toMillis());
			socket.setTcpNoDelay(true);
			return new RespClient(socket);
		}
		catch (IOException ex) {
			closeQuietly(socket);
			throw new UncheckedIOException("Cannot connect to Redis at " + host + ":" + port, ex);
		}
	}

	/**
	 * Sends one command and reads its reply.
	 * @param args the command and its arguments
	 * @return a String, Long, List or null
	 */
	public @Nullable Object call(String... args) {
		try {
			ByteArrayOutputStream buffer = new ByteArrayOutputStream();
			buffer.write(("*" + args.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
			for (String arg : args) {
				byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
				buffer.write(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
				buffer.write(bytes);
				buffer.write("\r\n".getBytes(StandardCharsets.US_ASCII));
			}
			this.out.write(buffer.toByteArray());
			this.out.flush();
			return readReply();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Redis command " + args[0] + " failed", ex);
		}
	}

	/**
	 * Sends one command whose reply is a bulk or simple string.
	 * @param args the command and its arguments
	 * @return the reply as a string
	 * @throws IllegalStateException when the reply is nil
	 */
	public String callForString(String... args) {
		Object reply = call(args);
		if (reply == null) {
			throw new IllegalStateException("Nil reply to " + String.join(" ", args));
		}
		return reply.toString();
	}

	/**
	 * Reads one more reply, for commands that stream ({@code MONITOR},
	 * {@code SUBSCRIBE}).
	 * @return a String, Long, List or null
	 */
	public @Nullable Object read() {
		try {
			return readReply();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Reading from Redis failed", ex);
		}
	}

	private @Nullable Object readReply() throws IOException {
		int type = this.in.read();
		if (type == -1) {
			throw new IOException("Connection closed by Redis");
		}
		String line = readLine();
		switch (type) {
			case '+':
				return line;
			case '-':
				throw new RespErrorException(line);
			case ':':
				return Long.parseLong(line);
			case '$': {
				int length = Integer.parseInt(line);
				if (length < 0) {
					return null;
				}
				byte[] data = this.in.readNBytes(length + 2);
				return new String(data, 0, length, StandardCharsets.UTF_8);
			}
			case '*': {
				int count = Integer.parseInt(line);
				if (count < 0) {
					return null;
				}
				List<Object> items = new ArrayList<>(count);
				for (int i = 0; i < count; i++) {
					items.add(readReply());
				}
				return items;
			}
			default:
				throw new IOException("Unexpected RESP type '" + (char) type + "'");
		}
	}

	private String readLine() throws IOException {
		ByteArrayOutputStream line = new ByteArrayOutputStream();
		int previous = -1;
		int current;
		while ((current = this.in.read()) != -1) {
			if (previous == '\r' && current == '\n') {
				byte[] bytes = line.toByteArray();
				return new String(bytes, 0, bytes.length - 1, StandardCharsets.UTF_8);
			}
			line.write(current);
			previous = current;
		}
		throw new IOException("Connection closed by Redis");
	}

	@Override
	public void close() {
		closeQuietly(this.socket);
	}

	private static void closeQuietly(Socket socket) {
		try {
			socket.close();
		}
		catch (IOException ex) {
			// nothing to do: the socket is gone either way
		}
	}

	/**
	 * An error reply from Redis.
	 */
	public static final class RespErrorException extends RuntimeException {

		RespErrorException(String message) {
			super(message);
		}

	}

}
