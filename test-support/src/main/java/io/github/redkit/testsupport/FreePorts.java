package io.github.redkit.testsupport;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Finds free loopback ports for test servers, below the kernel's ephemeral range: a port
 * in that range can be taken by any outgoing connection between the check and the
 * server's bind, and the server then fails to start.
 */
final class FreePorts {

	/** Cluster nodes also bind {@code port + 10000} for the cluster bus. */
	private static final int CLUSTER_BUS_OFFSET = 10000;

	private static final int LOWEST = 10000;

	private static final Path EPHEMERAL_RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");

	/** Ports handed out in this JVM, never handed out twice. */
	private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();

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
		return isFree(port) && HANDED_OUT.add(port);
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
