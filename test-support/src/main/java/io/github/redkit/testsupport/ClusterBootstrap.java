package io.github.redkit.testsupport;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns freshly started {@code cluster-enabled} nodes into a working Redis Cluster: one
 * slot range per master, every node introduced, and {@code cluster_state:ok} everywhere.
 */
final class ClusterBootstrap {

	static final int SLOTS = 16384;

	private static final Duration READY_TIMEOUT = Duration.ofSeconds(30);

	private ClusterBootstrap() {
	}

	static void form(List<Integer> ports) {
		int count = ports.size();
		for (int i = 0; i < count; i++) {
			int from = i * SLOTS / count;
			int to = (i + 1) * SLOTS / count;
			List<String> command = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
			for (int slot = from; slot < to; slot++) {
				command.add(String.valueOf(slot));
			}
			try (RespClient client = RespClient.connect(RedisServer.HOST, ports.get(i), Duration.ofSeconds(5))) {
				client.call(command.toArray(String[]::new));
			}
		}
		try (RespClient first = RespClient.connect(RedisServer.HOST, ports.get(0), Duration.ofSeconds(5))) {
			for (int port : ports.subList(1, count)) {
				first.call("CLUSTER", "MEET", RedisServer.HOST, String.valueOf(port));
			}
		}
		awaitReady(ports);
	}

	private static void awaitReady(List<Integer> ports) {
		long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
		while (System.nanoTime() < deadline) {
			if (ports.stream().allMatch((port) -> isReady(port, ports.size()))) {
				return;
			}
			RedisProcess.sleep(50);
		}
		throw new IllegalStateException("Redis Cluster on ports " + ports + " not ready within " + READY_TIMEOUT);
	}

	private static boolean isReady(int port, int nodes) {
		try (RespClient client = RespClient.connect(RedisServer.HOST, port, Duration.ofSeconds(2))) {
			String info = client.callForString("CLUSTER", "INFO");
			return info.contains("cluster_state:ok") && info.contains("cluster_known_nodes:" + nodes)
					&& info.contains("cluster_slots_ok:" + SLOTS);
		}
	}

}
