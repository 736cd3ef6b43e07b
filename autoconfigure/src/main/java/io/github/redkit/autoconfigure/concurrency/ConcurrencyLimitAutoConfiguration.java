package io.github.redkit.autoconfigure.concurrency;

import io.github.redkit.core.ServerNeed;
import io.github.redkit.core.ServerNeeds;
import io.github.redkit.autoconfigure.EarlyProperties;
import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.concurrency.ConcurrencyLimiter;
import io.github.redkit.concurrency.internal.ConcurrencyLimitedAdvisor;
import io.github.redkit.concurrency.internal.ConcurrencyLimitedInterceptor;
import io.github.redkit.concurrency.internal.RedisConcurrencyLimiter;
import io.github.redkit.concurrency.web.ConcurrencyLimitExceptionHandler;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.KeyExpressionEvaluator;
import io.github.redkit.core.internal.RedisScriptRunner;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.http.ProblemDetail;
import org.springframework.util.function.SingletonSupplier;

/**
 * Concurrency limits across instances: the {@link ConcurrencyLimiter} bean, the
 * {@code @ConcurrencyLimited} advisor and the Spring MVC mapping of refusals to
 * {@code 429}.
 */
@AutoConfiguration(after = RedkitAutoConfiguration.class)
@ConditionalOnBean(RedisScriptRunner.class)
@ConditionalOnBooleanProperty(name = "redkit.concurrency-limit.enabled", matchIfMissing = true)
@EnableConfigurationProperties(ConcurrencyLimitProperties.class)
public final class ConcurrencyLimitAutoConfiguration {

	// what the server doctor checks for this capability
	@Bean
	@ConditionalOnMissingBean(name = "redkitConcurrencyLimitServerNeeds")
	ServerNeeds redkitConcurrencyLimitServerNeeds() {
		return ServerNeeds.of("concurrency-limit", ServerNeed.NO_EVICTION);
	}

	@Bean
	@ConditionalOnMissingBean(ConcurrencyLimiter.class)
	RedisConcurrencyLimiter redkitConcurrencyLimiter(RedisScriptRunner runner, RedisKeyspace keyspace,
			ConcurrencyLimitProperties properties, RedkitMetrics metrics,
			ObjectProvider<RedkitObservations> observations) {
		return new RedisConcurrencyLimiter(runner, keyspace, ConcurrencyLimitPropertiesMapper.policies(properties),
				ConcurrencyLimitPropertiesMapper.settings(properties), metrics,
				observations.getIfAvailable(() -> RedkitObservations.NONE));
	}

	@Bean
	@ConditionalOnMissingBean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static ConcurrencyLimitedAdvisor redkitConcurrencyLimitedAdvisor(ObjectProvider<ConcurrencyLimiter> limiter,
			ObjectProvider<KeyExpressionEvaluator> evaluator, Environment environment) {
		int order = EarlyProperties.bind(environment, "redkit.concurrency-limit", ConcurrencyLimitProperties.class)
			.getOrder();
		return new ConcurrencyLimitedAdvisor(new ConcurrencyLimitedInterceptor(SingletonSupplier.of(limiter::getObject),
				SingletonSupplier.of(evaluator::getObject)), order);
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnWebApplication
	@ConditionalOnClass(ProblemDetail.class)
	static class ConcurrencyLimitWebConfiguration {

		@Bean
		@ConditionalOnMissingBean
		ConcurrencyLimitExceptionHandler redkitConcurrencyLimitExceptionHandler() {
			return new ConcurrencyLimitExceptionHandler();
		}

	}

}
