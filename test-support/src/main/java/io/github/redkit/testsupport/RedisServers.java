package io.github.redkit.testsupport;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.DockerClientFactory;

import org.springframework.util.ClassUtils;

/**
 * Entry point of the test support: shared servers started once per JVM and stopped when
 * it exits, and dedicated servers for tests that stop, restart or freeze Redis.
 * <p>
 * Testcontainers ({@code redis:7}, or {@code REDKIT_REDIS_IMAGE}) is used when a Docker
 * engine answers; otherwise real {@code redis-server} processes (see
 * {@link RedisBinary}). {@code REDKIT_TEST_REDIS=process|docker} (or the system property
 * {@code redkit.test.redis}) forces one.
 */
public final class RedisServers {

	private static final Logger logger = LoggerFactory.getLogger(RedisServers.class);

	private static final int CLUSTER_MASTERS = 3;

	private static final String OLDEST_IMAGE = "redis:6.2";

	private static final String TESTCONTAINERS = "org.testcontainers.DockerClientFactory";

	private static @Nullable RedisServer standalone;

	private static @Nullable RedisServer cluster;

	private static @Nullable RedisServer oldest;

	private static @Nullable RedisServer sentinel;

	private static final Map<String, RedisServer> named = new HashMap<>();

	private RedisServers() {
	}

	/**
	 * The shared standalone server. Tests must not stop or pause it.
	 * @return a running server
	 */
	public static synchronized RedisServer standalone() {
		if (standalone == null) {
			standalone = shared(RedisServers::startStandalone);
		}
		return standalone;
	}

	/**
	 * The shared Redis Cluster of three masters. Tests must not stop or pause it.
	 * @return a running cluster with all slots assigned
	 */
	public static synchronized RedisServer cluster() {
		if (cluster == null) {
			cluster = shared(RedisServers::startCluster);
		}
		return cluster;
	}

	/**
	 * The shared server of the oldest supported version, Redis 6.2: the binary of the
	 * embedded-redis artifact (or the {@code redis:6.2} image with Docker). Tests must
	 * not stop or pause it.
	 * @return a running server
	 */
	public static synchronized RedisServer oldest() {
		if (oldest == null) {
			oldest = shared(RedisServers::startOldest);
			logger.info("Started Redis {}: {}", oldest.version(), oldest.description());
		}
		return oldest;
	}

	/**
	 * Whether a server of another family or version can be started here: with Docker
	 * always (its image), otherwise when {@link RedisBinary#named(String)} finds its
	 * command.
	 * @param name the server's name, {@code redis-8}, {@code valkey-8} or
	 * {@code valkey-9}
	 * @return whether {@link #named(String)} can start it
	 */
	public static boolean available(String name) {
		return useDocker() || RedisBinary.named(name).isPresent();
	}

	/**
	 * The shared server of another family or version: {@code redis-8} (Redis 8.0),
	 * {@code valkey-8} (Valkey 8.1) or {@code valkey-9} (Valkey 9.1). Tests must not stop
	 * or pause it.
	 * @param name the server's name
	 * @return a running server
	 * @throws IllegalStateException when this machine has no such server
	 */
	public static synchronized RedisServer named(String name) {
		RedisServer server = named.get(name);
		if (server == null) {
			server = shared(() -> startNamed(name));
			logger.info("Started {} {}: {}", name, server.version(), server.description());
			named.put(name, server);
		}
		return server;
	}

	private static RedisServer startOldest() {
		return useDocker() ? ContainerRedisServer.standalone(OLDEST_IMAGE)
				: ProcessRedisServer.standalone(RedisBinary.embedded()
					.orElseThrow(() -> new IllegalStateException(
							"The oldest-version topology needs the embedded-redis binary for this platform")));
	}

	private static RedisServer startNamed(String name) {
		return useDocker() ? ContainerRedisServer.standalone(imageOf(name))
				: ProcessRedisServer.standalone(RedisBinary.named(name)
					.orElseThrow(() -> new IllegalStateException("No " + name + " server here: run .ci/servers"
							+ " (Debian's packages, unpacked under ~/.cache/redkit/servers) or set REDKIT_"
							+ name.toUpperCase(Locale.ROOT).replace('-', '_') + "_SERVER")));
	}

	private static String imageOf(String name) {
		return switch (name) {
			case "redis-8" -> "redis:8.0";
			case "valkey-8" -> "valkey/valkey:8.1";
			case "valkey-9" -> "valkey/valkey:9.1";
			default -> throw new IllegalArgumentException("Unknown server " + name);
		};
	}

	/**
	 * The shared Sentinel deployment (master, replica, three Sentinels). Tests must not
	 * stop, pause or fail it over.
	 * @return a running, settled deployment
	 */
	public static synchronized RedisServer sentinel() {
		if (sentinel == null) {
			sentinel = shared(() -> startSentinel(RedisTopology.sharedSentinelDownAfter()));
		}
		return sentinel;
	}

	/**
	 * Starts a Sentinel deployment owned by the caller, which must close it. Sentinel
	 * runs as processes (the {@code redis-server} of {@link RedisBinary}) even where
	 * Docker is available, so that a test can kill the master the way a crash does.
	 * @param downAfter how long the master must be unreachable before it is failed over
	 * @return a running, settled deployment
	 */
	public static SentinelRedisServer startSentinel(Duration downAfter) {
		return startSentinel(downAfter, 1);
	}

	/**
	 * Starts a Sentinel deployment of several replicas owned by the caller, which must
	 * close it.
	 * @param downAfter how long the master must be unreachable before it is failed over
	 * @param replicas how many replicas
	 * @return a running, settled deployment
	 */
	public static SentinelRedisServer startSentinel(Duration downAfter, int replicas) {
		SentinelRedisServer server = SentinelRedisServer.start(RedisBinary.locate(), downAfter, replicas);
		logger.info("Started Redis {}: {}", server.version(), server.description());
		return server;
	}

	/**
	 * Starts a standalone server owned by the caller, which must close it.
	 * @return a running server
	 */
	public static RedisServer startStandalone() {
		RedisServer server = useDocker() ? ContainerRedisServer.standalone(image())
				: ProcessRedisServer.standalone(RedisBinary.locate());
		logger.info("Started Redis {}: {}", server.version(), server.description());
		return server;
	}

	/**
	 * Starts a server like a topology's, owned by the caller, which must close it: a
	 * standalone server of its family ({@link RedisTopology#OLDEST}'s Redis 6.2, the
	 * server of {@link #named(String)} for the other families, the default one for
	 * standalone, pooled and Sentinel), or a cluster for {@link RedisTopology#CLUSTER}.
	 * @param topology the topology
	 * @return a running server
	 */
	public static RedisServer startLike(RedisTopology topology) {
		if (topology == RedisTopology.CLUSTER) {
			return startCluster();
		}
		RedisServer server;
		if (topology == RedisTopology.OLDEST) {
			server = startOldest();
		}
		else if (topology == RedisTopology.REDIS_8 || topology == RedisTopology.VALKEY_8
				|| topology == RedisTopology.VALKEY_9) {
			server = startNamed(topology.name().toLowerCase(Locale.ROOT).replace('_', '-'));
		}
		else {
			return startStandalone();
		}
		logger.info("Started {} {}: {}", topology, server.version(), server.description());
		return server;
	}

	/**
	 * Starts a standalone {@code redis-server} process on a given port, owned by the
	 * caller, which must close it: for applications that must find each other's Redis
	 * (the sample's regions), so never in a container.
	 * @param port the port, which must be free
	 * @return a running server
	 */
	public static RedisServer startStandalone(int port) {
		RedisServer server = ProcessRedisServer.standalone(RedisBinary.locate(), port);
		logger.info("Started Redis {}: {}", server.version(), server.description());
		return server;
	}

	/**
	 * Starts a standalone {@code redis-server} process with settings of its own (such as
	 * {@code --maxmemory-policy allkeys-lru} or {@code --rename-command CONFIG ""}),
	 * owned by the caller, which must close it; always a process, whose command line any
	 * server version takes.
	 * @param arguments the settings, after the defaults (no persistence) which they may
	 * override
	 * @return a running server
	 */
	public static RedisServer startStandalone(List<String> arguments) {
		RedisServer server = ProcessRedisServer.standalone(RedisBinary.locate(), FreePorts.find(false), arguments);
		logger.info("Started Redis {}: {} {}", server.version(), server.description(), arguments);
		return server;
	}

	/**
	 * A loopback port no server listens on and none of this JVM's will take: where a test
	 * needs a Redis that is away, without starting one to stop it.
	 * @return a free port
	 */
	public static int unusedPort() {
		return FreePorts.find(false);
	}

	/**
	 * Starts a Redis Cluster owned by the caller, which must close it.
	 * @return a running cluster with all slots assigned
	 */
	public static RedisServer startCluster() {
		RedisServer server = useDocker() ? ContainerRedisServer.cluster(image(), CLUSTER_MASTERS)
				: ProcessRedisServer.cluster(RedisBinary.locate(), CLUSTER_MASTERS);
		logger.info("Started Redis {}: {}", server.version(), server.description());
		return server;
	}

	private static RedisServer shared(Supplier<RedisServer> starter) {
		RedisServer server = starter.get();
		Runtime.getRuntime().addShutdownHook(new Thread(server::close, "redkit-redis-shutdown"));
		return server;
	}

	private static String image() {
		String image = System.getenv("REDKIT_REDIS_IMAGE");
		return (image != null && !image.isBlank()) ? image : "redis:7";
	}

	static boolean useDocker() {
		String mode = System.getProperty("redkit.test.redis", System.getenv("REDKIT_TEST_REDIS"));
		mode = (mode != null) ? mode.toLowerCase(Locale.ROOT) : "auto";
		boolean testcontainers = ClassUtils.isPresent(TESTCONTAINERS, RedisServers.class.getClassLoader());
		return switch (mode) {
			case "docker" -> {
				if (!testcontainers) {
					throw new IllegalStateException("REDKIT_TEST_REDIS=docker, but Testcontainers"
							+ " (org.testcontainers:testcontainers) is not on the class path");
				}
				yield true;
			}
			case "process" -> false;
			// an application that runs its own Redis this way (the sample) need not ship
			// Testcontainers: without it, processes
			default -> testcontainers && dockerLooksPresent() && DockerClientFactory.instance().isDockerAvailable();
		};
	}

	private static boolean dockerLooksPresent() {
		// asking Testcontainers costs seconds and log noise on machines with no engine at
		// all
		return System.getenv("DOCKER_HOST") != null || Files.exists(Path.of("/var/run/docker.sock"))
				|| Files.exists(Path.of(System.getProperty("user.home"), ".testcontainers.properties"));
	}

}
