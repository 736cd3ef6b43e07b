package io.github.redkit.test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.DockerClientFactory;

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

	private static RedisServer standalone;

	private static RedisServer cluster;

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
		return switch (mode) {
			case "docker" -> true;
			case "process" -> false;
			default -> dockerLooksPresent() && DockerClientFactory.instance().isDockerAvailable();
		};
	}

	private static boolean dockerLooksPresent() {
		// asking Testcontainers costs seconds and log noise on machines with no engine at
		// all
		return System.getenv("DOCKER_HOST") != null || Files.exists(Path.of("/var/run/docker.sock"))
				|| Files.exists(Path.of(System.getProperty("user.home"), ".testcontainers.properties"));
	}

}
