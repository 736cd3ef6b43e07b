package io.github.redkit.test;

import java.util.function.Supplier;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The shared servers a behaviour suite runs against, for
 * {@code @ParameterizedClass @EnumSource(RedisTopology.class)}.
 */
public enum RedisTopology {

	/** One Redis server. */
	STANDALONE(RedisServers::standalone),

	/** A Redis Cluster of three masters. */
	CLUSTER(RedisServers::cluster);

	private final Supplier<RedisServer> server;

	private LettuceConnectionFactory connectionFactory;

	RedisTopology(Supplier<RedisServer> server) {
		this.server = server;
	}

	/**
	 * The shared server of this topology, started on first use.
	 * @return a running server
	 */
	public RedisServer server() {
		return this.server.get();
	}

	/**
	 * A connection factory to the shared server, created on first use and destroyed when
	 * the JVM exits.
	 * @return a started connection factory; do not destroy it
	 */
	public synchronized LettuceConnectionFactory connectionFactory() {
		if (this.connectionFactory == null) {
			LettuceConnectionFactory factory = server().createConnectionFactory();
			Runtime.getRuntime().addShutdownHook(new Thread(factory::destroy, "redkit-connection-shutdown"));
			this.connectionFactory = factory;
		}
		return this.connectionFactory;
	}

}
