package io.github.redkit.ratelimit;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.autoconfigure.ratelimit.RateLimitAutoConfiguration;
import io.github.redkit.testsupport.RedisServers;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The blocking application the {@code @RateLimited} suites run their beans in, written
 * once: the advice, Redis (the shared standalone server) and the rate limits, the keys
 * under a prefix of the suite's.
 */
final class RateLimitedApplications {

	private RateLimitedApplications() {
	}

	/**
	 * An application to which a suite adds its limits and its annotated beans.
	 * @param keyPrefix {@code redkit.key-prefix}
	 * @return the runner
	 */
	static ApplicationContextRunner runner(String keyPrefix) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
					RedkitAutoConfiguration.class, RateLimitAutoConfiguration.class))
			.withPropertyValues(RedisServers.standalone().springProperties())
			// a first call that waited for the connection longer than the timeout would
			// fail open and leave nothing counted
			.withPropertyValues("redkit.rate-limit.timeout=5s", "redkit.key-prefix=" + keyPrefix);
	}

}
