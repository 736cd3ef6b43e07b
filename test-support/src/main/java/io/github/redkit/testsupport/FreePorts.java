package io.github.redkit.testsupport;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds free loopback ports for test servers, below the kernel's ephemeral range: a port
 * in that range can be taken by any outgoing connection between the check and the
 * server's bind, and the server then fails to start. A port handed out is claimed for the
 * machine (a lock file) until this JVM ends, so that parallel JVMs never share one.
 */
final class FreePorts {

	/** Cluster nodes also bind {@code port + 10000} for the cluster bus. */
	private static final int CLUSTER_BUS_OFFSET = 10000;

	private static final int LOWEST = 10000;

	private static final Path EPHEMERAL_RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");

	/** Ports handed out in this JVM, never handed out twice. */
	private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();

	/**
	 * One lock file per port claimed, shared by every JVM of the machine (surefire's
	 * forks, parallel modules): a port stays claimed while its server is stopped for a
	 * restart, and the kernel drops the lock when the JVM ends, even killed.
	 */
	private static final Path CLAIMS = Path.of(System.getProperty("java.io.tmpdir"), "redkit-ports");

	/**
	 * Where a user claims ports when {@link #CLAIMS} is not theirs to write (another user
	 * made it): shared with their own JVMs only.
	 */
	private static final Path USERS_CLAIMS = Path.of(System.getProperty("java.io.tmpdir"),
			"redkit-ports-" + System.getProperty("user.name"));

	private static final Logger logger = LoggerFactory.getLogger(FreePorts.class);

	/** Whether this JVM said that it claims ports in {@link #USERS_CLAIMS}. */
	private static volatile boolean fellBack;

	/**
	 * The claims this JVM holds, by port: open until it ends, or until a cluster node's
	 * port is given back because its bus port was taken. One channel a file: closing any
	 * other channel on a file this JVM locks would drop the lock (POSIX record locks
	 * belong to the process).
	 */
	private static final Map<Integer, FileChannel> HELD = new ConcurrentHashMap<>();

	private FreePorts() {
	}

	static int find(boolean withClusterBus) {
		int end = ephemeralStart() - (withClusterBus ? CLUSTER_BUS_OFFSET : 0);
		for (int attempt = 0; attempt < 500; attempt++) {
			int port = ThreadLocalRandom.current().nextInt(LOWEST, end);
			if (!withClusterBus && reserve(port)) {
				return port;
			}
			if (withClusterBus && isFree(port + CLUSTER_BUS_OFFSET) && reserve(port)) {
				if (reserve(port + CLUSTER_BUS_OFFSET)) {
					return port;
				}
				release(port);
			}
		}
		throw new IllegalStateException("No free port found");
	}

	/**
	 * Reserves one port for this JVM if it is free and not handed out before.
	 * @param port the port
	 * @return whether this JVM may now use the port
	 */
	static boolean reserve(int port) {
		// this JVM's claim first: a port it holds never gets a second channel
		if (!HANDED_OUT.add(port)) {
			return false;
		}
		if (isFree(port) && claimOnMachine(port)) {
			return true;
		}
		HANDED_OUT.remove(port);
		return false;
	}

	private static void release(int port) {
		FileChannel channel = HELD.remove(port);
		if (channel != null) {
			close(channel);
		}
		HANDED_OUT.remove(port);
	}

	private static boolean claimOnMachine(int port) {
		FileChannel channel = open(port);
		try {
			if (channel.tryLock() != null) {
				HELD.put(port, channel);
				return true;
			}
		}
		catch (IOException ex) {
			// another JVM holds it
		}
		close(channel);
		return false;
	}

	private static FileChannel open(int port) {
		try {
			return open(CLAIMS, port);
		}
		catch (IOException ex) {
			try {
				FileChannel channel = open(USERS_CLAIMS, port);
				if (!fellBack) {
					fellBack = true;
					logger.warn("Cannot claim ports in {} ({}): claimed in {}, seen by this user's JVMs only", CLAIMS,
							ex.toString(), USERS_CLAIMS);
				}
				return channel;
			}
			catch (IOException again) {
				again.addSuppressed(ex);
				throw new UncheckedIOException(
						"Cannot claim port " + port + " for the machine in " + CLAIMS + " nor in " + USERS_CLAIMS,
						again);
			}
		}
	}

	private static FileChannel open(Path claims, int port) throws IOException {
		Files.createDirectories(claims);
		return FileChannel.open(claims.resolve(port + ".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
	}

	private static void close(FileChannel channel) {
		try {
			channel.close();
		}
		catch (IOException ex) {
			// nothing held
		}
	}

	private static int ephemeralStart() {
		// read to its end: procfs reports no size, and Files.readString read one byte
		try (BufferedReader reader = Files.newBufferedReader(EPHEMERAL_RANGE)) {
			String line = reader.readLine();
			int start = Integer.parseInt((line != null) ? line.trim().split("\\s+")[0] : "");
			return (start > LOWEST + CLUSTER_BUS_OFFSET + 1000) ? start : 45000;
		}
		catch (IOException | RuntimeException ex) {
			// not Linux: the range the old code used
			return 45000;
		}
	}

	private static boolean isFree(int port) {
		try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getByName(RedisServer.HOST))) {
			socket.setReuseAddress(true);
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

}
