package io.github.redkit.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.lettuce.core.resource.ClientResources;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration.LettuceClientConfigurationBuilder;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A TCP proxy on the loopback interface between a client and a server, for fault tests:
 * it can delay what it forwards, hold everything as a network partition does (and deliver
 * it once healed, as TCP's retransmissions would), cut every connection at once, and cut
 * one connection after a request was applied and before its reply arrived. A test points
 * its client at {@link #port()} instead of the server's port.
 */
public final class TcpProxy implements AutoCloseable {

	private final ServerSocket listener;

	private volatile int targetPort;

	private volatile long delayNanos;

	private volatile boolean partitioned;

	private final Object healed = new Object();

	private final Set<Link> links = ConcurrentHashMap.newKeySet();

	private volatile boolean closed;

	private final AtomicBoolean cutAfterWrite = new AtomicBoolean();

	private final AtomicInteger cutsAfterWrite = new AtomicInteger();

	private volatile byte @Nullable [][] cutMarkers;

	// the cuts done after a request a marker matched, by the marker's bytes
	private final Map<String, AtomicInteger> cutsAfterWriteByMarker = new ConcurrentHashMap<>();

	private TcpProxy(int targetPort) throws IOException {
		this.targetPort = targetPort;
		this.listener = new ServerSocket(FreePorts.find(false), 50, InetAddress.getByName(RedisServer.HOST));
		Thread acceptor = new Thread(this::accept, "tcp-proxy-" + this.listener.getLocalPort());
		acceptor.setDaemon(true);
		acceptor.start();
	}

	/**
	 * Starts a proxy to a port on the loopback interface.
	 * @param targetPort the server's port
	 * @return the started proxy
	 */
	public static TcpProxy start(int targetPort) {
		try {
			return new TcpProxy(targetPort);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * The port clients connect to.
	 * @return the proxy's port
	 */
	public int port() {
		return this.listener.getLocalPort();
	}

	/**
	 * Points new connections at another server (a failover); existing ones are cut.
	 * @param port the new server's port
	 */
	public void retarget(int port) {
		this.targetPort = port;
		cut();
	}

	/**
	 * Delays every byte forwarded from now on, both ways.
	 * @param delay the one-way delay, zero for none
	 */
	public void delay(Duration delay) {
		this.delayNanos = delay.toNanos();
	}

	/**
	 * Holds every byte, both ways, and every new connection, until {@link #heal()}.
	 */
	public void partition() {
		this.partitioned = true;
	}

	/**
	 * Ends a partition and a delay: what was held is delivered.
	 */
	public void heal() {
		this.delayNanos = 0;
		synchronized (this.healed) {
			this.partitioned = false;
			this.healed.notifyAll();
		}
	}

	/**
	 * Closes every open connection at once; new connections are accepted.
	 */
	public void cut() {
		this.links.forEach(Link::close);
	}

	/**
	 * Arms a cut after a write: the next request a client sends (on any connection) is
	 * forwarded to the server, and from then on nothing the server sends reaches that
	 * client; once the server has answered, the connection is closed. The server applied
	 * the request, the client never saw the answer: a client that reconnects and sends
	 * its unanswered commands again (Lettuce does) has them applied twice.
	 */
	public void cutAfterNextWrite() {
		this.cutMarkers = null;
		this.cutAfterWrite.set(true);
	}

	/**
	 * Arms a cut after a write of some commands only: as {@link #cutAfterNextWrite()},
	 * but the request cut after is the next command one of whose arguments contains one
	 * of the given byte sequences (a key, a script's SHA-1), or that is an {@code EVAL}
	 * of a script whose SHA-1 is one of them (the form a script is sent in after
	 * {@code NOSCRIPT}), so that a test can make the cut hit the command it is about. A
	 * command is judged whole, whatever reads its bytes arrived in.
	 * @param markers bytes of which the request must contain one
	 */
	public void cutAfterNextWrite(byte[]... markers) {
		this.cutMarkers = markers.clone();
		this.cutAfterWrite.set(true);
	}

	/**
	 * How many connections were cut after a write since the proxy started.
	 * @return the number of cuts done by {@link #cutAfterNextWrite()}
	 */
	public int cutsAfterWrite() {
		return this.cutsAfterWrite.get();
	}

	/**
	 * How many connections were cut after a request a marker matched (see
	 * {@link #cutAfterNextWrite(byte[]...)}), once the server answered it.
	 * @param marker the marker
	 * @return the number of those cuts
	 */
	public int cutsAfterWrite(byte[] marker) {
		AtomicInteger cuts = this.cutsAfterWriteByMarker.get(key(marker));
		return (cuts != null) ? cuts.get() : 0;
	}

	/**
	 * A started connection factory whose connections go through this proxy.
	 * @param commandTimeout the connections' command timeout
	 * @return a started factory, for the caller to destroy
	 */
	public LettuceConnectionFactory connectionFactory(Duration commandTimeout) {
		return connectionFactory(LettuceClientConfiguration.builder().commandTimeout(commandTimeout));
	}

	/**
	 * A started connection factory whose connections go through this proxy, on client
	 * resources of the caller's (e.g. a reconnect delay of its own).
	 * @param commandTimeout the connections' command timeout
	 * @param resources the client resources
	 * @return a started factory, for the caller to destroy
	 */
	public LettuceConnectionFactory connectionFactory(Duration commandTimeout, ClientResources resources) {
		return connectionFactory(
				LettuceClientConfiguration.builder().clientResources(resources).commandTimeout(commandTimeout));
	}

	private LettuceConnectionFactory connectionFactory(LettuceClientConfigurationBuilder client) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(RedisServer.HOST, port()), client.build());
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	@Override
	public void close() {
		this.closed = true;
		heal();
		cut();
		try {
			this.listener.close();
		}
		catch (IOException ex) {
			// closing
		}
	}

	private void accept() {
		while (!this.closed) {
			try {
				Socket client = this.listener.accept();
				awaitHealed();
				Socket server = new Socket();
				try {
					server.connect(new InetSocketAddress(RedisServer.HOST, this.targetPort), 2000);
				}
				catch (IOException ex) {
					close(client);
					close(server);
					continue;
				}
				Link link = new Link(client, server);
				this.links.add(link);
				link.start();
			}
			catch (IOException ex) {
				// the listener closed, or one accept failed
			}
		}
	}

	private void awaitHealed() {
		synchronized (this.healed) {
			while (this.partitioned && !this.closed) {
				try {
					this.healed.wait(100);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					return;
				}
			}
		}
	}

	private static void close(Socket socket) {
		try {
			socket.close();
		}
		catch (IOException ex) {
			// already closed
		}
	}

	/** A client connection and its server connection, with a delay queue each way. */
	private final class Link {

		private final Socket client;

		private final Socket server;

		// set once a request was forwarded under an armed cut after a write: what the
		// server sends from then on is dropped, and its first answer closes the link
		private volatile boolean droppingReplies;

		// the marker that matched the request cut after, if the cut was aimed
		private volatile byte @Nullable [] cutMarker;

		// the client's commands, whole, for an aimed cut (only the writer up reads them)
		private final RequestFrames requests = new RequestFrames();

		Link(Socket client, Socket server) {
			this.client = client;
			this.server = server;
		}

		void start() {
			pump(this.client, this.server, "up");
			pump(this.server, this.client, "down");
		}

		private void pump(Socket from, Socket to, String direction) {
			BlockingQueue<Chunk> queue = new LinkedBlockingQueue<>();
			Thread reader = new Thread(() -> read(from, queue), "tcp-proxy-read-" + direction);
			boolean up = from == this.client;
			Thread writer = new Thread(() -> write(queue, to, up), "tcp-proxy-write-" + direction);
			reader.setDaemon(true);
			writer.setDaemon(true);
			reader.start();
			writer.start();
		}

		private void read(Socket from, BlockingQueue<Chunk> queue) {
			byte[] buffer = new byte[16384];
			// a shorter delay never lets later bytes overtake earlier ones
			long lastDue = 0;
			try (InputStream in = from.getInputStream()) {
				int read;
				while ((read = in.read(buffer)) >= 0) {
					lastDue = Math.max(lastDue, System.nanoTime() + TcpProxy.this.delayNanos);
					queue.add(new Chunk(Arrays.copyOf(buffer, read), lastDue));
				}
			}
			catch (IOException ex) {
				// cut or closed
			}
			// the writer sends what was read, then closes
			queue.add(new Chunk(null, lastDue));
		}

		private void write(BlockingQueue<Chunk> queue, Socket to, boolean up) {
			try (OutputStream out = to.getOutputStream()) {
				while (true) {
					Chunk chunk = queue.take();
					long wait = chunk.dueNanos - System.nanoTime();
					if (wait > 0) {
						TimeUnit.NANOSECONDS.sleep(wait);
					}
					if (chunk.bytes == null) {
						break;
					}
					awaitHealed();
					if (!up && this.droppingReplies) {
						// the server answered the request: the client never sees it
						cutDone(this.cutMarker);
						break;
					}
					if (up) {
						armCut(chunk.bytes);
					}
					out.write(chunk.bytes);
					out.flush();
				}
			}
			catch (SocketException ex) {
				// cut
			}
			catch (IOException ex) {
				// closed
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			close();
		}

		/**
		 * Starts dropping the server's replies when a cut is armed and the bytes the
		 * client sends complete a request it waits for. Every read goes through the
		 * client's commands, so that their framing holds when a cut is armed later.
		 */
		private void armCut(byte[] bytes) {
			byte @Nullable [][] markers = TcpProxy.this.cutMarkers;
			List<List<byte[]>> commands = this.requests.feed(bytes);
			if (!TcpProxy.this.cutAfterWrite.get()) {
				return;
			}
			byte @Nullable [] matched = null;
			if (markers != null) {
				matched = matching(commands, markers);
				if (matched == null) {
					return;
				}
			}
			if (TcpProxy.this.cutAfterWrite.compareAndSet(true, false)) {
				this.cutMarker = matched;
				this.droppingReplies = true;
			}
		}

		void close() {
			TcpProxy.this.links.remove(this);
			TcpProxy.close(this.client);
			TcpProxy.close(this.server);
		}

	}

	private void cutDone(byte @Nullable [] marker) {
		this.cutsAfterWrite.incrementAndGet();
		if (marker != null) {
			this.cutsAfterWriteByMarker.computeIfAbsent(key(marker), (key) -> new AtomicInteger()).incrementAndGet();
		}
	}

	private static String key(byte[] marker) {
		return new String(marker, StandardCharsets.ISO_8859_1);
	}

	/** The first marker one of the commands matches, or {@code null}. */
	private static byte @Nullable [] matching(List<List<byte[]>> commands, byte[][] markers) {
		for (List<byte[]> command : commands) {
			byte @Nullable [] evaluated = evaluatedSha1(command);
			for (byte[] marker : markers) {
				if (evaluated != null && Arrays.equals(evaluated, marker)) {
					return marker;
				}
				for (byte[] argument : command) {
					if (contains(argument, marker)) {
						return marker;
					}
				}
			}
		}
		return null;
	}

	/** The SHA-1 (hex) of the script an {@code EVAL} sends, or {@code null}. */
	private static byte @Nullable [] evaluatedSha1(List<byte[]> command) {
		if (command.size() < 2) {
			return null;
		}
		String name = new String(command.get(0), StandardCharsets.US_ASCII);
		if (!name.equalsIgnoreCase("EVAL") && !name.equalsIgnoreCase("EVAL_RO")) {
			return null;
		}
		try {
			byte[] digest = MessageDigest.getInstance("SHA-1").digest(command.get(1));
			return HexFormat.of().formatHex(digest).getBytes(StandardCharsets.US_ASCII);
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static boolean contains(byte[] bytes, byte[] marker) {
		for (int i = 0; i + marker.length <= bytes.length; i++) {
			if (Arrays.equals(bytes, i, i + marker.length, marker, 0, marker.length)) {
				return true;
			}
		}
		return false;
	}

	/** Bytes due at a moment; no bytes for the end of the stream. */
	private record Chunk(byte @Nullable [] bytes, long dueNanos) {
	}

}
