package io.github.redkit.autoconfigure;

import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.internal.KeyExpressionEvaluator;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.testsupport.RedisServers;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

class RedkitAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedkitAutoConfiguration.class))
		.withPropertyValues(RedisServers.standalone().springProperties());

	@Test
	void backsOffWithoutARedisConnectionFactory() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(RedkitAutoConfiguration.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(RedisKeyspace.class)
				.doesNotHaveBean(RedisScriptRunner.class));
	}

	@Test
	void providesTheCoreWithTheDefaultPrefix() {
		this.runner.run((context) -> {
			assertThat(context).hasSingleBean(RedisKeyspace.class)
				.hasSingleBean(RedisScriptRunner.class)
				.hasSingleBean(KeyExpressionEvaluator.class);
			assertThat(context.getBean(RedisKeyspace.class).prefix()).isEqualTo("redkit");
			StringRedisTemplate template = context.getBean(RedisScriptRunner.class).template();
			template.opsForValue().set("redkit-test:autoconfig", "ok");
			assertThat(template.opsForValue().get("redkit-test:autoconfig")).isEqualTo("ok");
		});
	}

	@Test
	void usesTheConfiguredPrefix() {
		this.runner.withPropertyValues("redkit.key-prefix=shop")
			.run((context) -> assertThat(context.getBean(RedisKeyspace.class).prefix()).isEqualTo("shop"));
	}

	@Test
	void aPrefixThatWouldBeAHashTagFailsNamingTheProperty() {
		this.runner.withPropertyValues("redkit.key-prefix=shop{1}")
			.run((context) -> assertThat(context).hasFailed().getFailure().rootCause().hasMessageContaining("shop{1}"))
			.run((context) -> assertThat(context.getStartupFailure()).hasStackTraceContaining("redkit.key-prefix"));
	}

	@Test
	void handsScriptsOffToAsManyThreadsAsThePoolHasConnections() {
		this.runner.run((context) -> assertThat(context.getBean(RedisScriptRunner.class).handOffThreads())
			.isEqualTo(RedisScriptRunner.DEFAULT_HAND_OFF_THREADS));
		this.runner
			.withPropertyValues("spring.data.redis.lettuce.pool.enabled=true",
					"spring.data.redis.lettuce.pool.max-active=3")
			.run((context) -> assertThat(context.getBean(RedisScriptRunner.class).handOffThreads()).isEqualTo(3));
		this.runner.withPropertyValues("redkit.hand-off-threads=5")
			.run((context) -> assertThat(context.getBean(RedisScriptRunner.class).handOffThreads()).isEqualTo(5));
	}

	@Test
	void noHandOffThreadFailsNamingTheProperty() {
		this.runner.withPropertyValues("redkit.hand-off-threads=0")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("redkit.hand-off-threads"));
	}

	@Test
	void everyBeanCanBeReplaced() {
		this.runner.withUserConfiguration(CustomKeyspace.class)
			.run((context) -> assertThat(context.getBean(RedisKeyspace.class).prefix()).isEqualTo("custom"));
	}

	@Configuration(proxyBeanMethods = false)
	static class CustomKeyspace {

		@Bean
		RedisKeyspace customKeyspace() {
			return new RedisKeyspace("custom");
		}

	}

}
