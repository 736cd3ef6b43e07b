package io.github.redkit.core;

import java.nio.charset.StandardCharsets;

import io.github.redkit.testsupport.ScannedKeys;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Removes the keys of an application that tests share, so that each test starts from an
 * empty key space instead of from a new application.
 */
public final class ApplicationKeys {

	private ApplicationKeys() {
	}

	/**
	 * Deletes every key under the application's {@code redkit.key-prefix}, on every
	 * master of a cluster.
	 * @param context a running application
	 */
	public static void remove(ConfigurableApplicationContext context) {
		String prefix = context.getEnvironment().getRequiredProperty("redkit.key-prefix");
		RedisConnectionFactory factory = context.getBean(RedisConnectionFactory.class);
		try (RedisConnection connection = factory.getConnection()) {
			// one key a call: a cluster's keys are in several slots
			for (String key : ScannedKeys.matching(factory, prefix + "*")) {
				connection.keyCommands().del(key.getBytes(StandardCharsets.UTF_8));
			}
		}
	}

}
