package io.github.redkit.benchmarks;

import java.util.Map;

import io.github.redkit.testsupport.RedisServer;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The clients contenders share: a Spring Boot context with Redkit's auto-configuration,
 * and a Redisson client, each pointed at the benchmark's Redis.
 */
final class Clients {

	private Clients() {
	}

	static ConfigurableApplicationContext springContext(RedisServer redis, Class<?>... extraConfiguration) {
		return springContext(redis, Map.of(), extraConfiguration);
	}

	static ConfigurableApplicationContext springContext(RedisServer redis, Map<String, Object> properties,
			Class<?>... extraConfiguration) {
		Class<?>[] sources = new Class<?>[extraConfiguration.length + 1];
		sources[0] = BenchmarkApplication.class;
		System.arraycopy(extraConfiguration, 0, sources, 1, extraConfiguration.length);
		return new SpringApplicationBuilder(sources).web(WebApplicationType.NONE)
			.logStartupInfo(false)
			.properties(Map.of("spring.data.redis.host", RedisServer.HOST, "spring.data.redis.port", redis.port(),
					"spring.main.banner-mode", "off", "logging.level.root", "warn"))
			.properties(properties)
			.run();
	}

	static RedissonClient redisson(RedisServer redis) {
		Config config = new Config();
		config.useSingleServer().setAddress("redis://" + RedisServer.HOST + ":" + redis.port());
		return Redisson.create(config);
	}

	/**
	 * The application the Spring contexts of the benchmark start from.
	 */
	@SpringBootApplication(scanBasePackages = "io.github.redkit.benchmarks.none")
	static class BenchmarkApplication {

	}

}
