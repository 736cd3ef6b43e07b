package io.github.redkit.autoconfigure;

import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservationConvention;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.KeyExpressionEvaluator;
import io.github.redkit.core.internal.MicrometerRedkitMetrics;
import io.github.redkit.core.internal.MicrometerRedkitObservations;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.core.internal.RedkitThreads;
import io.github.redkit.core.web.KeyExpressionExceptionHandler;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.thread.Threading;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The core every Redkit capability builds on: the keyspace, the script runner and the
 * SpEL key evaluator. Backs off when there is no {@link RedisConnectionFactory}.
 */
@AutoConfiguration(afterName = RedkitAutoConfiguration.DATA_REDIS_AUTO_CONFIGURATION)
@ConditionalOnClass(RedisConnectionFactory.class)
@ConditionalOnBean(RedisConnectionFactory.class)
@EnableConfigurationProperties(RedkitProperties.class)
public final class RedkitAutoConfiguration {

	static final String DATA_REDIS_AUTO_CONFIGURATION = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration";

	RedkitAutoConfiguration(Environment environment) {
		// spring.threads.virtual.enabled on Java 21+: Redkit's own threads become
		// virtual, like Boot's executors
		RedkitThreads.useVirtualThreads(Threading.VIRTUAL.isActive(environment));
	}

	@Bean
	@ConditionalOnMissingBean
	RedisKeyspace redkitKeyspace(RedkitProperties properties) {
		try {
			return new RedisKeyspace(properties.getKeyPrefix());
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("Invalid redkit.key-prefix: " + ex.getMessage(), ex);
		}
	}

	@Bean
	@ConditionalOnMissingBean
	RedisScriptRunner redkitScriptRunner(RedisConnectionFactory connectionFactory, RedkitProperties properties) {
		Integer handOffThreads = properties.getHandOffThreads();
		if (handOffThreads != null && handOffThreads < 1) {
			throw new IllegalArgumentException("redkit.hand-off-threads must be > 0 (was " + handOffThreads + ")");
		}
		RedisScriptRunner runner = new RedisScriptRunner(connectionFactory,
				(handOffThreads != null) ? handOffThreads : RedisScriptRunner.defaultHandOffThreads(connectionFactory));
		runner.allowNativeCommands(properties.isNativeCommands());
		runner.connectInBackground();
		return runner;
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnWebApplication
	@ConditionalOnClass(name = "org.springframework.http.ProblemDetail")
	static class WebConfiguration {

		@Bean
		@ConditionalOnMissingBean
		KeyExpressionExceptionHandler redkitKeyExpressionExceptionHandler() {
			return new KeyExpressionExceptionHandler();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "io.micrometer.core.instrument.MeterRegistry")
	static final class MicrometerMetricsConfiguration {

		// the registry is looked up on first use: its auto-configuration may come later
		@Bean
		@ConditionalOnMissingBean
		RedkitMetrics redkitMetrics(ObjectProvider<MeterRegistry> registry) {
			return new MicrometerRedkitMetrics(registry::getIfUnique);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "io.micrometer.observation.ObservationRegistry")
	static final class MicrometerObservationsConfiguration {

		// the registry is looked up on first use: its auto-configuration may come later
		@Bean
		@ConditionalOnMissingBean
		RedkitObservations redkitObservations(ObjectProvider<ObservationRegistry> registry,
				ObjectProvider<RedkitObservationConvention> conventions) {
			return new MicrometerRedkitObservations(registry::getIfUnique, conventions.orderedStream().toList());
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnMissingClass("io.micrometer.observation.ObservationRegistry")
	static final class NoObservationsConfiguration {

		@Bean
		@ConditionalOnMissingBean
		RedkitObservations redkitObservations() {
			return RedkitObservations.NONE;
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnMissingClass("io.micrometer.core.instrument.MeterRegistry")
	static final class NoMetricsConfiguration {

		@Bean
		@ConditionalOnMissingBean
		RedkitMetrics redkitMetrics() {
			return RedkitMetrics.NONE;
		}

	}

	@Bean
	@ConditionalOnMissingBean
	KeyExpressionEvaluator redkitKeyExpressionEvaluator(BeanFactory beanFactory) {
		return new KeyExpressionEvaluator(beanFactory);
	}

}
