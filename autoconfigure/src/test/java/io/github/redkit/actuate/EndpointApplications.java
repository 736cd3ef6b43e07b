package io.github.redkit.actuate;

import java.util.ArrayList;
import java.util.List;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.autoconfigure.actuate.RedkitEndpointAutoConfiguration;
import io.github.redkit.testsupport.RedisTopology;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The applications the endpoint's suites read it from, written once: Redis, Redkit and
 * the endpoint, exposed, beside the capabilities a suite lists, with the keys under a
 * prefix of the suite's.
 */
final class EndpointApplications {

	private EndpointApplications() {
	}

	/**
	 * An application whose Redis properties the suite adds.
	 * @param keyPrefix {@code redkit.key-prefix}
	 * @param capabilities the auto-configurations of the capabilities it lists
	 * @return the runner
	 */
	static ApplicationContextRunner runner(String keyPrefix, Class<?>... capabilities) {
		List<Class<?>> configurations = new ArrayList<>(List.of(DataRedisAutoConfiguration.class,
				RedkitAutoConfiguration.class, RedkitEndpointAutoConfiguration.class));
		configurations.addAll(List.of(capabilities));
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(configurations.toArray(Class<?>[]::new)))
			.withPropertyValues("redkit.key-prefix=" + keyPrefix, "management.endpoints.web.exposure.include=redkit");
	}

	/**
	 * An application on a topology's server, connected to every master before a test
	 * reads it ({@link EveryNodeWarmedUp}).
	 * @param keyPrefix {@code redkit.key-prefix}
	 * @param topology the suite's topology
	 * @param capabilities the auto-configurations of the capabilities it lists
	 * @return the runner
	 */
	static ApplicationContextRunner runner(String keyPrefix, RedisTopology topology, Class<?>... capabilities) {
		return runner(keyPrefix, capabilities).withBean(EveryNodeWarmedUp.class)
			.withPropertyValues(topology.server().springProperties());
	}

	/**
	 * A keyspace of the application's own where the server has several: the suites beside
	 * it write and delete keys in database 0, and a walk over a keyspace that changes
	 * lists keys again (as documented).
	 * @param topology the suite's topology
	 * @return the properties that select it, none on a cluster
	 */
	static String[] ownKeyspace(RedisTopology topology) {
		return topology.server().isCluster() ? new String[0] : new String[] { "spring.data.redis.database=9" };
	}

}
