package io.github.redkit.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A Sentinel-managed Redis: one master, one replica (or more) and three Sentinels (quorum
 * two), run as {@code redis-server} processes on free loopback ports. Clients find the
 * master through the Sentinels, as Spring Boot's {@code spring.data.redis.sentinel.*}
 * does.
 * <p>
 * {@link #ports()} is the current master only, so that {@link #flushAll()} and command
 * statistics see the node that takes the writes; {@link #killMaster()} and
 * {@link #awaitFailover(int, Duration)} drive a failover.
 */
public final class SentinelRedisServer implements RedisServer {

	/** The name the Sentinels monitor the master under. */
	public static final String MASTER_NAME = "redkit";

	private static final Duration SETTLE_TIMEOUT = Duration.ofSeconds(30);

	private final Path binary;

	private final Path directory;

	private final Duration downAfter;

	private final int replicas;

	private final List<RedisProcess> dataNodes = new ArrayList<>();

	private final List<RedisProcess> sentinels = new ArrayList<>();

	private SentinelRedisServer(Path binary, Path directory, Duration downAfter, int replicas) {
		this.binary = binary;
		this.directory = directory;
		this.downAfter = downAfter;
		this.replicas = replicas;
		int master = FreePorts.find(false);
		// no diskless-sync delay: the replica is in sync a moment after it starts
		List<String> replication = List.of("--repl-diskless-sync-delay", "0");
		this.dataNodes.add(new RedisProcess(binary, directory, master, replication));
		List<String> replica = new ArrayList<>(replication);
		replica.addAll(List.of("--replicaof", HOST, String.valueOf(master)));
		for (int i = 0; i < replicas; i++) {
			this.dataNodes.add(new RedisProcess(binary, directory, FreePorts.find(false), replica));
		}
		for (int i = 0; i < 3; i++) {
			int port = FreePorts.find(false);
			this.sentinels
				.add(RedisProcess.sentinel(binary, directory, port, directory.resolve("sentinel-" + port + ".conf")));
		}
	}

	/**
	 * Starts a master, a replica and three Sentinels, and waits until the Sentinels know
	 * each other and the replica, so that a failover can happen.
	 * @param binary the redis-server executable (it runs the Sentinels too)
	 * @param downAfter how long the master must be unreachable before it is failed over
	 * @return a running, settled deployment
	 */
	public static SentinelRedisServer start(Path binary, Duration downAfter) {
		return start(binary, downAfter, 1);
	}

	/**
	 * Starts a master, {@code replicas} replicas and three Sentinels, and waits until the
	 * Sentinels know each other and every replica.
	 * @param binary the redis-server executable (it runs the Sentinels too)
	 * @param downAfter how long the master must be unreachable before it is failed over
	 * @param replicas how many replicas
	 * @return a running, settled deployment
	 */
	public static SentinelRedisServer start(Path binary, Duration downAfter, int replicas) {
		try {
			SentinelRedisServer server = new SentinelRedisServer(binary, Files.createTempDirectory("redkit-sentinel-"),
					downAfter, replicas);
			server.start();
			return server;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	@Override
	public synchronized void start() {
		stop();
		this.dataNodes.forEach(RedisProcess::start);
		int master = this.dataNodes.get(0).port();
		for (RedisProcess sentinel : this.sentinels) {
			writeSentinelConfig(sentinel.port(), master);
			sentinel.start();
		}
		awaitSettled();
	}

	private void writeSentinelConfig(int port, int master) {
		String config = String.join("\n", "port " + port, "bind " + HOST, "protected-mode no", "dir " + this.directory,
				"sentinel monitor " + MASTER_NAME + " " + HOST + " " + master + " 2",
				"sentinel down-after-milliseconds " + MASTER_NAME + " " + this.downAfter.toMillis(),
				"sentinel failover-timeout " + MASTER_NAME + " " + Math.max(this.downAfter.toMillis() * 4, 3000),
				"sentinel parallel-syncs " + MASTER_NAME + " 1", "");
		try {
			Files.writeString(this.directory.resolve("sentinel-" + port + ".conf"), config);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private void awaitSettled() {
		long deadline = System.nanoTime() + SETTLE_TIMEOUT.toNanos();
		while (!isSettled()) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException(
						"The Sentinels did not settle within " + SETTLE_TIMEOUT + "; see " + this.directory);
			}
			RedisProcess.sleep(50);
		}
	}

	private boolean isSettled() {
		try {
			int master = masterPort();
			for (int port : dataPorts()) {
				try (RespClient client = client(port)) {
					String replication = client.callForString("INFO", "replication");
					if (port != master && !replication.contains("master_link_status:up")) {
						return false;
					}
				}
			}
			for (RedisProcess sentinel : this.sentinels) {
				try (RespClient client = client(sentinel.port())) {
					String info = client.callForString("INFO", "sentinel");
					if (!info
						.contains("address=" + HOST + ":" + master + ",slaves=" + this.replicas + ",sentinels=3")) {
						return false;
					}
				}
			}
			return true;
		}
		catch (RuntimeException ex) {
			return false;
		}
	}

	/**
	 * The port of the master as the first Sentinel that answers sees it.
	 * @return the port
	 */
	public int masterPort() {
		RuntimeException last = null;
		for (RedisProcess sentinel : this.sentinels) {
			try (RespClient client = client(sentinel.port())) {
				Object reply = client.call("SENTINEL", "get-master-addr-by-name", MASTER_NAME);
				if (reply instanceof List<?> address && address.size() == 2) {
					return Integer.parseInt(String.valueOf(address.get(1)));
				}
			}
			catch (RuntimeException ex) {
				last = ex;
			}
		}
		throw new IllegalStateException("No Sentinel knows the master", last);
	}

	/**
	 * Kills the current master with SIGKILL: what it acknowledged but had not yet sent to
	 * the replica is lost, as in a crash.
	 * @return the port of the killed master
	 */
	public int killMaster() {
		int master = masterPort();
		dataNode(master).kill();
		return master;
	}

	/**
	 * Waits until the Sentinels name a master other than {@code oldMaster} and it takes
	 * writes.
	 * @param oldMaster the port of the failed master
	 * @param timeout how long to wait
	 * @return the port of the new master
	 */
	public int awaitFailover(int oldMaster, Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (System.nanoTime() < deadline) {
			try {
				int master = masterPort();
				if (master != oldMaster) {
					try (RespClient client = client(master)) {
						if (client.callForString("INFO", "replication").contains("role:master")) {
							return master;
						}
					}
				}
			}
			catch (RuntimeException ex) {
				// Sentinels mid-election
			}
			RedisProcess.sleep(20);
		}
		throw new IllegalStateException("No failover away from port " + oldMaster + " within " + timeout);
	}

	/**
	 * Freezes (SIGSTOP) or thaws (SIGCONT) the data node on a port, e.g. to let the
	 * replica fall behind before the master dies.
	 * @param port the node's port
	 * @param frozen whether to freeze it
	 */
	public void freeze(int port, boolean frozen) {
		dataNode(port).signal(frozen ? "STOP" : "CONT");
	}

	/**
	 * The ports of the master and the replicas.
	 * @return the data nodes' ports
	 */
	public List<Integer> dataPorts() {
		return this.dataNodes.stream().map(RedisProcess::port).toList();
	}

	private RedisProcess dataNode(int port) {
		return this.dataNodes.stream()
			.filter((node) -> node.port() == port)
			.findFirst()
			.orElseThrow(() -> new IllegalArgumentException("No data node on port " + port));
	}

	/**
	 * The ports of the Sentinels.
	 * @return the ports
	 */
	public List<Integer> sentinelPorts() {
		return this.sentinels.stream().map(RedisProcess::port).toList();
	}

	@Override
	public List<Integer> ports() {
		return List.of(masterPort());
	}

	/**
	 * Every Sentinel PINGs the master each second and PUBLISHes its hello each two.
	 */
	@Override
	public Set<String> backgroundCommands() {
		return Set.of("ping", "publish");
	}

	@Override
	public boolean isCluster() {
		return false;
	}

	@Override
	public String description() {
		return "master + " + this.replicas + " replica(s) + 3 Sentinels as redis-server processes (" + this.binary
				+ "), data ports " + dataPorts() + ", Sentinel ports " + sentinelPorts();
	}

	@Override
	public String[] springProperties() {
		String nodes = sentinelPorts().stream().map((port) -> HOST + ":" + port).collect(Collectors.joining(","));
		return new String[] { "spring.data.redis.sentinel.master=" + MASTER_NAME,
				"spring.data.redis.sentinel.nodes=" + nodes };
	}

	@Override
	public LettuceConnectionFactory createConnectionFactory() {
		return createConnectionFactory(Duration.ofSeconds(5));
	}

	@Override
	public LettuceConnectionFactory createConnectionFactory(Duration commandTimeout) {
		RedisSentinelConfiguration sentinel = new RedisSentinelConfiguration();
		sentinel.master(MASTER_NAME);
		sentinelPorts().forEach((port) -> sentinel.sentinel(HOST, port));
		LettuceConnectionFactory factory = new LettuceConnectionFactory(sentinel,
				LettuceClientConfiguration.builder().commandTimeout(commandTimeout).build());
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	/**
	 * Stops every process; {@link #start()} brings the deployment back empty, with the
	 * first data node as master.
	 */
	@Override
	public synchronized void stop() {
		this.sentinels.forEach(RedisProcess::stop);
		this.dataNodes.forEach(RedisProcess::stop);
	}

	/**
	 * Freezes the master (the Sentinels fail it over if it stays frozen longer than the
	 * down-after time).
	 */
	@Override
	public void pause() {
		freeze(masterPort(), true);
	}

	@Override
	public void resume() {
		this.dataNodes.forEach((node) -> node.signal("CONT"));
	}

	@Override
	public void close() {
		stop();
	}

}
