package io.github.redkit.testsupport;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * A Redis server, or a Redis Cluster of three masters in one container, run through
 * Testcontainers. Host ports are bound one to one so that a restart keeps them and
 * cluster nodes announce addresses the host can reach.
 */
final class ContainerRedisServer implements RedisServer {

	private final GenericContainer<?> container;

	private final List<Integer> ports;

	private final boolean cluster;

	private ContainerRedisServer(GenericContainer<?> container, List<Integer> ports, boolean cluster) {
		this.container = container;
		this.ports = ports;
		this.cluster = cluster;
	}

	static ContainerRedisServer standalone(String image) {
		int port = FreePorts.find(false);
		GenericContainer<?> container = new GenericContainer<>(DockerImageName.parse(image)).withCommand("redis-server",
				"--port", String.valueOf(port), "--save", "", "--appendonly", "no");
		container.setPortBindings(List.of(port + ":" + port));
		ContainerRedisServer server = new ContainerRedisServer(container, List.of(port), false);
		container.start();
		server.awaitPong();
		return server;
	}

	static ContainerRedisServer cluster(String image, int masters) {
		List<Integer> ports = new ArrayList<>();
		List<String> bindings = new ArrayList<>();
		for (int i = 0; i < masters; i++) {
			int port = FreePorts.find(true);
			ports.add(port);
			bindings.add(port + ":" + port);
		}
		String script = ports.stream()
			.map((port) -> "redis-server --port " + port + " --cluster-enabled yes --cluster-config-file nodes-" + port
					+ ".conf --cluster-announce-ip " + HOST + " --save '' --appendonly no --daemonize yes")
			.collect(Collectors.joining(" && ")) + " && tail -f /dev/null";
		GenericContainer<?> container = new GenericContainer<>(DockerImageName.parse(image)).withCommand("sh", "-c",
				script);
		container.setPortBindings(bindings);
		ContainerRedisServer server = new ContainerRedisServer(container, ports, true);
		container.start();
		server.awaitPong();
		ClusterBootstrap.form(ports);
		return server;
	}

	private void awaitPong() {
		long deadline = System.nanoTime() + 30_000_000_000L;
		while (System.nanoTime() < deadline) {
			try (RespClient client = client(port())) {
				if ("PONG".equals(client.call("PING"))) {
					return;
				}
			}
			catch (RuntimeException ex) {
				RedisProcess.sleep(50);
			}
		}
		throw new IllegalStateException("Redis container did not answer on port " + port());
	}

	@Override
	public List<Integer> ports() {
		return this.ports;
	}

	@Override
	public boolean isCluster() {
		return this.cluster;
	}

	@Override
	public String description() {
		return (this.cluster ? "Redis Cluster of " + this.ports.size() + " nodes" : "Redis") + " in container "
				+ this.container.getDockerImageName() + " on ports " + this.ports;
	}

	@Override
	public void stop() {
		this.container.getDockerClient().stopContainerCmd(this.container.getContainerId()).exec();
	}

	@Override
	public void start() {
		this.container.getDockerClient().startContainerCmd(this.container.getContainerId()).exec();
		awaitPong();
		if (this.cluster) {
			for (int port : this.ports) {
				try (RespClient client = client(port)) {
					client.call("FLUSHALL");
					client.call("CLUSTER", "RESET", "HARD");
				}
			}
			ClusterBootstrap.form(this.ports);
		}
	}

	@Override
	public void pause() {
		this.container.getDockerClient().pauseContainerCmd(this.container.getContainerId()).exec();
	}

	@Override
	public void resume() {
		this.container.getDockerClient().unpauseContainerCmd(this.container.getContainerId()).exec();
	}

	@Override
	public void close() {
		this.container.stop();
	}

}
