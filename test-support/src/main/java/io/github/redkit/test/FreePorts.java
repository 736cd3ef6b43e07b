package io.github.redkit.test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Finds free loopback ports for test servers.
 */
final class FreePorts {

	/** Cluster nodes also bind {@code port + 10000} for the cluster bus. */
	private static final int CLUSTER_BUS_OFFSET = 10000;

	private FreePorts() {
	}

	static int find(boolean withClusterBus) {
		for (int attempt = 0; attempt < 200; attempt++) {
			int port = ThreadLocalRandom.current().nextInt(20000, 45000);
			if (isFree(port) && (!withClusterBus || isFree(port + CLUSTER_BUS_OFFSET))) {
				return port;
			}
		}
		throw new IllegalStateException("No free port found");
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
