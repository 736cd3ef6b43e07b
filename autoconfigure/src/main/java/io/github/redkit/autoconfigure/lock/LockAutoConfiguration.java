package io.github.redkit.autoconfigure.lock;

import java.time.Duration;

import io.github.redkit.core.ServerNeed;
import io.github.redkit.core.ServerNeeds;
import io.github.redkit.actuate.RedkitEndpoint;
import io.github.redkit.autoconfigure.ConditionalOnRedkitReactive;
import io.github.redkit.autoconfigure.EarlyProperties;
import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.autoconfigure.actuate.RedkitEndpointProperties;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.KeyExpressionEvaluator;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.lock.DistributedLocks;
import io.github.redkit.lock.LockListener;
import io.github.redkit.lock.LockSettings;
import io.github.redkit.lock.ReactiveDistributedLocks;
import io.github.redkit.lock.actuate.LockEndpointSection;
import io.github.redkit.lock.internal.DefaultReactiveDistributedLocks;
import io.github.redkit.lock.internal.HeldLocks;
import io.github.redkit.lock.internal.LockAdvisor;
import io.github.redkit.lock.internal.LockInterceptor;
import io.github.redkit.lock.internal.RedisDistributedLocks;
import io.github.redkit.lock.web.LockExceptionHandler;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
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
import org.springframework.util.function.SingletonSupplier;

/**
 * Distributed locks: the {@link DistributedLocks} bean (and its reactive face where
 * Redkit's reactive support is on), the {@code @DistributedLock} advisor, and the Spring
 * MVC mapping of lock failures to problem details.
 */
@AutoConfiguration(after = RedkitAutoConfiguration.class)
@ConditionalOnBean(RedisScriptRunner.class)
@ConditionalOnBooleanProperty(name = "redkit.lock.enabled", matchIfMissing = true)
@EnableConfigurationProperties(LockProperties.class)
public final class LockAutoConfiguration {

	// what the server doctor checks for this capability
	@Bean
	@ConditionalOnMissingBean(name = "redkitLockServerNeeds")
	ServerNeeds redkitLockServerNeeds() {
		return ServerNeeds.of("lock", ServerNeed.NO_EVICTION, ServerNeed.REPLICATED_WRITES);
	}

	@Bean
	@ConditionalOnMissingBean(DistributedLocks.class)
	RedisDistributedLocks redkitDistributedLocks(RedisScriptRunner runner, RedisKeyspace keyspace,
			LockProperties properties, RedkitMetrics metrics, ObjectProvider<LockListener> listeners,
			ObjectProvider<RedkitObservations> observations) {
		LockSettings settings = LockPropertiesMapper.settings(properties);
		return new RedisDistributedLocks(runner, keyspace, settings, metrics,
				observations.getIfAvailable(() -> RedkitObservations.NONE), listeners.orderedStream().toList());
	}

	@Bean
	@ConditionalOnMissingBean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static LockAdvisor redkitLockAdvisor(ObjectProvider<DistributedLocks> locks,
			ObjectProvider<KeyExpressionEvaluator> evaluator, Environment environment) {
		LockProperties properties = EarlyProperties.bind(environment, "redkit.lock", LockProperties.class);
		Duration waitTime = properties.getWaitTime();
		LockInterceptor interceptor = new LockInterceptor(SingletonSupplier.of(locks::getObject),
				SingletonSupplier.of(evaluator::getObject), () -> waitTime);
		return new LockAdvisor(interceptor, properties.getOrder());
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnRedkitReactive
	static final class ReactiveLockConfiguration {

		@Bean
		@ConditionalOnMissingBean
		ReactiveDistributedLocks redkitReactiveDistributedLocks(DistributedLocks locks) {
			return new DefaultReactiveDistributedLocks(locks);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnWebApplication
	@ConditionalOnClass(name = "org.springframework.http.ProblemDetail")
	static final class LockWebConfiguration {

		@Bean
		@ConditionalOnMissingBean
		LockExceptionHandler redkitLockExceptionHandler() {
			return new LockExceptionHandler();
		}

	}

	// the capability's section of the redkit endpoint, when the endpoint is available
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
	@ConditionalOnAvailableEndpoint(RedkitEndpoint.class)
	@EnableConfigurationProperties(RedkitEndpointProperties.class)
	static final class LockEndpointConfiguration {

		@Bean
		@ConditionalOnMissingBean
		LockEndpointSection redkitLockEndpointSection(RedisScriptRunner runner, RedisKeyspace keyspace,
				LockProperties properties, RedkitEndpointProperties endpoint) {
			HeldLocks locks = new HeldLocks(runner, keyspace, properties.getRedisTimeout());
			return new LockEndpointSection(locks, runner, endpoint.toSettings());
		}

	}

}
