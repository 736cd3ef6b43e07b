package io.github.redkit.testsupport;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.jspecify.annotations.Nullable;
import org.slf4j.LoggerFactory;

/**
 * The shared servers a behaviour suite runs against, for
 * {@code @ParameterizedClass @RedisTopologies}. The heavy topologies run only when
 * selected: {@code -Dredkit.test.topologies=all} (the {@code all-topologies} Maven
 * profile, which {@code .ci/run} uses), or a list of names such as
 * {@code standalone,sentinel}; the default is {@code standalone,cluster}.
 */
public enum RedisTopology {

	/** One Redis server: Redis 7 when one is installed. */
	STANDALONE(RedisServers::standalone, false),

	/**
	 * The standalone server reached through a pool of dedicated connections
	 * ({@code spring.data.redis.lettuce.pool.enabled=true} without a shared native
	 * connection); for the suites that exercise the connection, whenever standalone runs.
	 */
	POOLED(RedisServers::standalone, false),

	/** A Redis Cluster of three masters. */
	CLUSTER(RedisServers::cluster, false),

	/** One server of the oldest supported version, 6.2 (the embedded binary). */
	OLDEST(RedisServers::oldest, true),

	/** A master, a replica and three Sentinels, reached through the Sentinels. */
	SENTINEL(RedisServers::sentinel, true),

	/**
	 * One Redis 8.0 server (Debian 13's package, see {@code .ci/servers}), for the suites
	 * that exercise the scripts; left out of {@code all} with a message when this machine
	 * has none.
	 */
	REDIS_8(() -> RedisServers.named("redis-8"), true),

	/**
	 * One Valkey 8.1 server (Debian 13's package, see {@code .ci/servers}), for the
	 * suites that exercise the scripts; left out of {@code all} with a message when this
	 * machine has none, or has {@link #VALKEY_9}, which runs them in its place (select it
	 * by name to run it beside).
	 */
	VALKEY_8(() -> RedisServers.named("valkey-8"), true),

	/**
	 * One Valkey 9.1 server (Debian testing's package, see {@code .ci/servers}), for the
	 * suites that exercise the scripts; left out of {@code all} with a message when this
	 * machine has none.
	 */
	VALKEY_9(() -> RedisServers.named("valkey-9"), true);

	/**
	 * The system property (or, upper-cased, environment variable) that selects
	 * topologies.
	 */
	public static final String SELECTION_PROPERTY = "redkit.test.topologies";

	private static final Set<String> MISSING_REPORTED = ConcurrentHashMap.newKeySet();

	private final Supplier<RedisServer> server;

	private final boolean heavy;

	private @Nullable LettuceConnectionFactory connectionFactory;

	RedisTopology(Supplier<RedisServer> server, boolean heavy) {
		this.server = server;
		this.heavy = heavy;
	}

	/**
	 * The shared server of this topology, started on first use.
	 * @return a running server
	 */
	public RedisServer server() {
		return this.server.get();
	}

	/**
	 * Spring Boot properties that point {@code spring.data.redis} at this topology, for a
	 * suite that builds an application: the server's, and for {@link #POOLED} Lettuce's
	 * pool of {@link RedisServer#createPooledConnectionFactory() the same size} as
	 * {@link #connectionFactory()}'s, so that the application's connections are pooled
	 * too. Boot keeps its shared native connection beside the pool (no property turns it
	 * off), so the application's scripts go on the pooled connection Redkit keeps of its
	 * own, and its blocking commands borrow from the pool.
	 * @return {@code name=value} pairs
	 */
	public String[] springProperties() {
		String[] server = server().springProperties();
		if (this != POOLED) {
			return server;
		}
		String[] pooled = Arrays.copyOf(server, server.length + 2);
		pooled[server.length] = "spring.data.redis.lettuce.pool.enabled=true";
		pooled[server.length + 1] = "spring.data.redis.lettuce.pool.max-active=" + RedisServer.POOL_SIZE;
		return pooled;
	}

	/**
	 * A connection factory to the shared server, created on first use and destroyed when
	 * the JVM exits.
	 * @return a started connection factory; do not destroy it
	 */
	public synchronized LettuceConnectionFactory connectionFactory() {
		if (this.connectionFactory == null) {
			LettuceConnectionFactory factory = (this != POOLED) ? server().createConnectionFactory()
					: server().createPooledConnectionFactory();
			Runtime.getRuntime().addShutdownHook(new Thread(factory::destroy, "redkit-connection-shutdown"));
			this.connectionFactory = factory;
		}
		return this.connectionFactory;
	}

	/**
	 * The topologies this run selected with {@value #SELECTION_PROPERTY}, with
	 * {@link #POOLED} beside a selected standalone topology.
	 * @return the selected topologies, in declaration order
	 * @throws IllegalArgumentException for an unknown name
	 */
	public static List<RedisTopology> selected() {
		return selected(Exercises.BOTH);
	}

	/**
	 * The topologies this run selected on which a suite exercising the given thing can
	 * fail: {@link #POOLED} beside a selected standalone topology for the connection, the
	 * other server families ({@link #OLDEST}, {@link #REDIS_8}, {@link #VALKEY_8},
	 * {@link #VALKEY_9}) for the scripts.
	 * @param exercises what the suite exercises
	 * @return the selected topologies, in declaration order
	 * @throws IllegalArgumentException for an unknown name
	 */
	public static List<RedisTopology> selected(Exercises exercises) {
		List<RedisTopology> selected = selectedByName();
		boolean withPooled = selected.contains(STANDALONE) || selected.contains(POOLED);
		return Arrays.stream(values())
			.filter((topology) -> (topology == POOLED) ? withPooled : selected.contains(topology))
			.filter(exercises::runsOn)
			.toList();
	}

	private boolean isOtherServer() {
		return this == REDIS_8 || this == VALKEY_8 || this == VALKEY_9;
	}

	private static List<RedisTopology> selectedByName() {
		String selection = System.getProperty(SELECTION_PROPERTY,
				System.getenv(SELECTION_PROPERTY.toUpperCase(Locale.ROOT).replace('.', '_')));
		if (selection == null || selection.isBlank() || selection.trim().equals("default")) {
			return Arrays.stream(values()).filter((topology) -> !topology.heavy && topology != POOLED).toList();
		}
		if (selection.trim().equals("all")) {
			return Arrays.stream(values())
				.filter((topology) -> topology != POOLED && topology.availableHere() && !topology.supersededHere())
				.toList();
		}
		List<RedisTopology> chosen = Arrays.stream(selection.split(","))
			.map(String::trim)
			.filter((name) -> !name.isEmpty())
			.map(RedisTopology::named)
			.toList();
		return Arrays.stream(values()).filter(chosen::contains).toList();
	}

	private static RedisTopology named(String name) {
		return Arrays.stream(values())
			.filter((topology) -> topology.name().equalsIgnoreCase(name.replace('-', '_')))
			.findFirst()
			.orElseThrow(() -> new IllegalArgumentException(
					SELECTION_PROPERTY + ": unknown topology '" + name + "'; use all, default or some of "
							+ Arrays.stream(values())
								.map((topology) -> topology.name().toLowerCase(Locale.ROOT))
								.collect(Collectors.joining(","))));
	}

	private boolean availableHere() {
		String name = name().toLowerCase(Locale.ROOT).replace('_', '-');
		if (!isOtherServer() || RedisServers.available(name)) {
			return true;
		}
		if (MISSING_REPORTED.add(name)) {
			LoggerFactory.getLogger(RedisTopology.class)
				.warn("Topology {} left out: no {} server here (run .ci/servers, or set REDKIT_{}_SERVER)", name, name,
						name());
		}
		return false;
	}

	// Valkey 8.1 runs in all only where Valkey 9.1 cannot: the two differ in no command
	// Redkit sends but DELIFEQ (9.0), whose absence standalone Redis covers, and each
	// server family runs every script suite once more (CI time, issue 44)
	private boolean supersededHere() {
		if (this != VALKEY_8 || !VALKEY_9.availableHere()) {
			return false;
		}
		if (MISSING_REPORTED.add("superseded " + name())) {
			LoggerFactory.getLogger(RedisTopology.class)
				.info("Topology valkey-8 left out of all: valkey-9 runs the script suites in its place "
						+ "(-D{}=valkey-8 runs them on Valkey 8.1)", SELECTION_PROPERTY);
		}
		return true;
	}

	static Duration sharedSentinelDownAfter() {
		// long enough that a loaded CI machine never fails the shared master over by
		// mistake
		return Duration.ofSeconds(10);
	}

}
