package io.github.redkit.actuate;

import java.time.Duration;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisClusterNode;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.awaitility.Awaitility.await;

/**
 * Connects a context's connection factory to every master before a test runs, as the
 * suites on {@code RedisTopology.connectionFactory()} get for free (one factory per JVM,
 * already connected): the first lock on a cold cluster otherwise pays the topology
 * discovery and the node connections inside the lock's 2 s Redis timeout.
 */
class EveryNodeWarmedUp implements SmartInitializingSingleton {

	private final RedisConnectionFactory connectionFactory;

	EveryNodeWarmedUp(RedisConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
	}

	@Override
	public void afterSingletonsInstantiated() {
		await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(this::pingEveryMaster);
	}

	private boolean pingEveryMaster() {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			if (connection instanceof RedisClusterConnection cluster) {
				for (RedisClusterNode node : cluster.clusterGetNodes()) {
					if (node.isMaster()) {
						cluster.ping(node);
					}
				}
				return true;
			}
			return "PONG".equals(connection.ping());
		}
	}

}
