package io.github.redkit.testsupport;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

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

	/** The claims this JVM holds: open until it ends. */
	private static final Set<FileChannel> HELD = ConcurrentHashMap.newKeySet();

	private FreePorts() {
	}

	static int find(boolean withClusterBus) {
		int end = ephemeralStart() - (withClusterBus ? CLUSTER_BUS_OFFSET : 0);
		for (int attempt = 0; attempt < 500; attempt++) {
			int port = ThreadLocalRandom.current().nextInt(LOWEST, end);
			if ((!withClusterBus || isFree(port + CLUSTER_BUS_OFFSET)) && reserve(port)
					&& (!withClusterBus || reserve(port + CLUSTER_BUS_OFFSET))) {
				return port;
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
		return isFree(port) && claimOnMachine(port) && HANDED_OUT.add(port);
	}

	private static boolean claimOnMachine(int port) {
		FileChannel channel;
		try {
			Files.createDirectories(CLAIMS);
			channel = FileChannel.open(CLAIMS.resolve(port + ".lock"), StandardOpenOption.CREATE,
					StandardOpenOption.WRITE);
		}
		catch (IOException ex) {
			// no claims on this file system: the socket's check alone
			return true;
		}
		try {
			if (channel.tryLock() != null) {
				HELD.add(channel);
				return true;
			}
		}
		catch (IOException | OverlappingFileLockException ex) {
			// another JVM holds it, or this one does
		}
		close(channel);
		return false;
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
		try {
			int start = Integer.parseInt(Files.readString(EPHEMERAL_RANGE).trim().split("\\s+")[0]);
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
