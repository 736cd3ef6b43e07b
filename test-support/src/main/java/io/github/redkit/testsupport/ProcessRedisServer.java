package io.github.redkit.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A Redis server, or a Redis Cluster of three masters, run as {@code redis-server}
 * processes on free loopback ports.
 */
final class ProcessRedisServer implements RedisServer {

	private final Path binary;

	private final List<RedisProcess> processes;

	private final boolean cluster;

	private ProcessRedisServer(Path binary, List<RedisProcess> processes, boolean cluster) {
		this.binary = binary;
		this.processes = processes;
		this.cluster = cluster;
	}

	static ProcessRedisServer standalone(Path binary) {
		return standalone(binary, FreePorts.find(false));
	}

	static ProcessRedisServer standalone(Path binary, int port) {
		return standalone(binary, port, List.of());
	}

	static ProcessRedisServer standalone(Path binary, int port, List<String> arguments) {
		Path directory = workDirectory();
		RedisProcess process = new RedisProcess(binary, directory, port, arguments);
		ProcessRedisServer server = new ProcessRedisServer(binary, List.of(process), false);
		server.start();
		return server;
	}

	static ProcessRedisServer cluster(Path binary, int masters) {
		Path directory = workDirectory();
		List<RedisProcess> processes = new ArrayList<>();
		for (int i = 0; i < masters; i++) {
			int port = FreePorts.find(true);
			processes.add(new RedisProcess(binary, directory, port, List.of("--cluster-enabled", "yes",
					"--cluster-config-file", "nodes-" + port + ".conf", "--cluster-node-timeout", "5000")));
		}
		ProcessRedisServer server = new ProcessRedisServer(binary, processes, true);
		server.start();
		return server;
	}

	private static Path workDirectory() {
		try {
			return Files.createTempDirectory("redkit-redis-");
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	@Override
	public List<Integer> ports() {
		return this.processes.stream().map(RedisProcess::port).toList();
	}

	@Override
	public boolean isCluster() {
		return this.cluster;
	}

	@Override
	public String description() {
		return (this.cluster ? "Redis Cluster of " + this.processes.size() + " redis-server processes"
				: "redis-server process") + " (" + this.binary + ") on ports " + ports();
	}

	@Override
	public synchronized void start() {
		this.processes.forEach(RedisProcess::start);
		if (this.cluster) {
			deleteClusterState();
			ClusterBootstrap.form(ports());
		}
	}

	private void deleteClusterState() {
		// a restarted cluster comes back empty, like a restarted standalone server
		for (RedisProcess process : this.processes) {
			try (RespClient client = client(process.port())) {
				client.call("FLUSHALL");
				client.call("CLUSTER", "RESET", "HARD");
			}
		}
	}

	@Override
	public synchronized void stop() {
		this.processes.forEach(RedisProcess::stop);
	}

	@Override
	public void pause() {
		this.processes.forEach((process) -> process.signal("STOP"));
	}

	@Override
	public void resume() {
		this.processes.forEach((process) -> process.signal("CONT"));
	}

	@Override
	public void close() {
		stop();
	}

}
