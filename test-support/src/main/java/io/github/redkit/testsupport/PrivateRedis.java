package io.github.redkit.testsupport;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A Redis server of the test's own, for the tests that pause, stop, kill, flush or
 * configure it (a class that only needs a server uses {@link RedisTopology#STANDALONE}'s
 * shared one).
 * <ul>
 * <li>On a static {@link RedisServer} field: a server started before the class's tests
 * and closed after them, one per field.</li>
 * <li>On a static {@code List<RedisServer>} field: {@link #count()} such servers (one per
 * region, say).</li>
 * <li>On a static
 * {@link org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory}
 * field: a started connection factory to the class's server (the one named by
 * {@link #server()} when it has several), destroyed before that server closes; on a
 * static {@code List<LettuceConnectionFactory>} field, one per server of the named list
 * field.</li>
 * <li>On a static {@link ProxiedCluster} field: the class's cluster (the
 * {@code cluster = true} server named by {@link #server()} when it has several) with a
 * proxy before each master, closed before that cluster.</li>
 * <li>On a {@link RedisServer} parameter of a test method: a server started for that test
 * and closed after it, for a test that breaks its server for good or needs one of its own
 * configuration.</li>
 * <li>{@link #ofTopology()} on a static {@link RedisServer} field of a suite run over the
 * topologies: a server like each topology, started before the first test on it and closed
 * once that topology's tests are done.</li>
 * <li>On a {@link RedisNode} field or parameter, the same for a fault test's node
 * (paused, killed, restarted, failed over, its clock moved), with a replica if
 * {@link #replica()} and a movable clock if {@link #movableClock()}.</li>
 * </ul>
 * A server is standalone ({@link RedisServers#startStandalone()}) unless
 * {@link #cluster()}, {@link #process()} or {@link #arguments()} say otherwise.
 */
@Target({ ElementType.FIELD, ElementType.PARAMETER })
@Retention(RetentionPolicy.RUNTIME)
@Documented
@ExtendWith(PrivateRedisExtension.class)
public @interface PrivateRedis {

	/**
	 * For a connection factory or proxied cluster field, the name of the server field it
	 * reaches; empty for the class's only one.
	 * @return a field name, or empty
	 */
	String server() default "";

	/**
	 * For a {@code List<RedisServer>} field, how many servers it holds.
	 * @return the number of servers, at least one
	 */
	int count() default 1;

	/**
	 * Whether the server is a Redis Cluster of three masters
	 * ({@link RedisServers#startCluster()}).
	 * @return {@code true} for a cluster
	 */
	boolean cluster() default false;

	/**
	 * Whether the server is a {@code redis-server} process even where Docker is available
	 * (it always is with {@link #arguments()}): for a test that needs the process'
	 * defaults, no persistence among them.
	 * @return {@code true} for a process
	 */
	boolean process() default false;

	/**
	 * Settings of the server's own, after the defaults which they may override (such as
	 * {@code "--appendonly", "yes"}): a process started with
	 * {@link RedisServers#startStandalone(java.util.List)}.
	 * @return the settings, none by default
	 */
	String[] arguments() default {};

	/**
	 * Whether the server is of the test's {@link RedisTopology} (the class's
	 * {@code @Parameter} field of that type, in a suite run by
	 * {@link RedisTopologies @RedisTopologies}): a standalone server of that topology's
	 * family (Redis 6.2 for {@code oldest}, Redis 8.0 or Valkey for theirs, the default
	 * server for the others) or, for {@code cluster}, a cluster of its own; for a test of
	 * a server's own that what it exercises can fail on another server family. On a
	 * static field, the server of the class's tests on that topology, one after the
	 * other: they leave it as they found it (a pause ended, a frozen server resumed).
	 * @return {@code true} for a server like the test's topology
	 */
	boolean ofTopology() default false;

	/**
	 * For a {@link SentinelRedisServer}, how long its master must be unreachable before
	 * the Sentinels fail it over (see {@link RedisServers#startSentinel}).
	 * @return milliseconds, by default the shared deployment's 10 s
	 */
	long sentinelDownAfterMillis() default 10_000;

	/**
	 * For a {@link SentinelRedisServer}, how many replicas its master has.
	 * @return the number of replicas, at least one
	 */
	int sentinelReplicas() default 1;

	/**
	 * For a {@link RedisNode}, whether it gets a replica that
	 * {@link RedisNode#failOverBehind(java.time.Duration)} can promote.
	 * @return {@code true} for a node with a replica
	 */
	boolean replica() default false;

	/**
	 * For a {@link RedisNode}, whether {@link RedisNode#shiftClock(java.time.Duration)}
	 * can move its clock; a test (or class) that asks for one is disabled where
	 * {@link RedisNode#movableClockAvailable() none can be started}.
	 * @return {@code true} for a node with a movable clock
	 */
	boolean movableClock() default false;

}
