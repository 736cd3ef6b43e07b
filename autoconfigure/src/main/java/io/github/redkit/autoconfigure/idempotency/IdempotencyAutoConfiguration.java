package io.github.redkit.autoconfigure.idempotency;

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
import io.github.redkit.core.internal.ReplayWindow;
import io.github.redkit.idempotency.IdempotentSteps;
import io.github.redkit.idempotency.ReactiveIdempotentSteps;
import io.github.redkit.idempotency.actuate.StepEndpointSection;
import io.github.redkit.idempotency.internal.DefaultReactiveIdempotentSteps;
import io.github.redkit.idempotency.internal.IdempotencySettings;
import io.github.redkit.idempotency.internal.IdempotentStepAdvisor;
import io.github.redkit.idempotency.internal.IdempotentStepInterceptor;
import io.github.redkit.idempotency.internal.RedisIdempotentSteps;
import io.github.redkit.idempotency.internal.StepResults;
import io.github.redkit.idempotency.web.IdempotencyExceptionHandler;
import io.github.redkit.idempotency.web.IdempotencyKeyFilter;
import io.github.redkit.idempotency.web.IdempotencyKeyScopeResolver;
import io.github.redkit.idempotency.web.IdempotencyKeyWebFilter;
import tools.jackson.databind.json.JsonMapper;

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
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.util.function.SingletonSupplier;

/**
 * Idempotent, ordered steps: the {@link IdempotentSteps} bean (and its reactive face in a
 * reactive application), the {@code @IdempotentStep} advisor, their metrics and the
 * Spring MVC answers.
 */
@AutoConfiguration(after = RedkitAutoConfiguration.class)
@ConditionalOnClass(name = "tools.jackson.databind.json.JsonMapper")
@ConditionalOnBean(RedisScriptRunner.class)
@ConditionalOnBooleanProperty(name = "redkit.idempotency.enabled", matchIfMissing = true)
@EnableConfigurationProperties(IdempotencyProperties.class)
public final class IdempotencyAutoConfiguration {

	// what the server doctor checks for this capability
	@Bean
	@ConditionalOnMissingBean(name = "redkitIdempotencyServerNeeds")
	ServerNeeds redkitIdempotencyServerNeeds() {
		return ServerNeeds.of("idempotency", ServerNeed.NO_EVICTION, ServerNeed.PERSISTENCE,
				ServerNeed.REPLICATED_WRITES);
	}

	@Bean
	@ConditionalOnMissingBean
	IdempotentSteps redkitIdempotentSteps(RedisScriptRunner runner, RedisKeyspace keyspace,
			ObjectProvider<JsonMapper> jsonMapper, IdempotencyProperties properties, RedkitMetrics metrics,
			ObjectProvider<RedkitObservations> observations, ObjectProvider<RedisConnectionFactory> connectionFactory) {
		IdempotencySettings settings = IdempotencyPropertiesMapper.settings(properties);
		RedisIdempotentSteps steps = new RedisIdempotentSteps(runner, keyspace,
				jsonMapper.getIfAvailable(JsonMapper.builder()::build), settings, metrics,
				observations.getIfAvailable(() -> RedkitObservations.NONE));
		// until when Lettuce may send an abandon again: how long its generated id is kept
		steps.setCommandTimeout(ReplayWindow.commandTimeout(connectionFactory.getIfAvailable()));
		return steps;
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnRedkitReactive
	static class ReactiveIdempotencyConfiguration {

		@Bean
		@ConditionalOnMissingBean
		ReactiveIdempotentSteps redkitReactiveIdempotentSteps(IdempotentSteps steps) {
			return new DefaultReactiveIdempotentSteps(steps);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "org.springframework.aop.support.AbstractPointcutAdvisor")
	static class AdvisorConfiguration {

		@Bean
		@ConditionalOnMissingBean
		@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
		static IdempotentStepAdvisor redkitIdempotentStepAdvisor(ObjectProvider<IdempotentSteps> steps,
				ObjectProvider<KeyExpressionEvaluator> keys, ObjectProvider<JsonMapper> jsonMapper,
				Environment environment) {
			IdempotencyProperties properties = EarlyProperties.bind(environment, "redkit.idempotency",
					IdempotencyProperties.class);
			if (properties.getMaxFluxElements() < 1) {
				throw new IllegalStateException("redkit.idempotency.max-flux-elements must be at least 1 (was "
						+ properties.getMaxFluxElements() + ")");
			}
			IdempotentStepInterceptor interceptor = new IdempotentStepInterceptor(
					SingletonSupplier.of(steps::getObject), SingletonSupplier.of(keys::getObject),
					SingletonSupplier.of(() -> new StepResults(jsonMapper.getIfAvailable(JsonMapper.builder()::build))),
					properties.getMaxFluxElements());
			return new IdempotentStepAdvisor(interceptor, properties.getOrder());
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnWebApplication
	@ConditionalOnClass(name = "org.springframework.http.ProblemDetail")
	static class WebConfiguration {

		@Bean
		@ConditionalOnMissingBean
		IdempotencyExceptionHandler redkitIdempotencyExceptionHandler() {
			return new IdempotencyExceptionHandler();
		}

	}

	// whose key space an Idempotency-Key falls in: the authenticated user unless the
	// application declares a resolver
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnWebApplication
	@Conditional(OnIdempotencyKeyRoutesCondition.class)
	static final class IdempotencyKeyScopeConfiguration {

		@Bean
		@ConditionalOnMissingBean
		IdempotencyKeyScopeResolver redkitIdempotencyKeyScopeResolver() {
			return IdempotencyKeyScopeResolver.principal();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
	@ConditionalOnClass(name = "jakarta.servlet.Filter")
	@Conditional(OnIdempotencyKeyRoutesCondition.class)
	static final class ServletIdempotencyKeyConfiguration {

		@Bean
		@ConditionalOnMissingBean
		IdempotencyKeyFilter redkitIdempotencyKeyFilter(IdempotentSteps steps, IdempotencyProperties properties,
				IdempotencyKeyScopeResolver scopes, ObjectProvider<JsonMapper> jsonMapper) {
			return new IdempotencyKeyFilter(steps,
					IdempotencyPropertiesMapper.http(properties,
							jsonMapper.getIfAvailable(JsonMapper.builder()::build)),
					IdempotencyPropertiesMapper.scopes(properties, scopes), properties.getHttp().getOrder());
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
	@ConditionalOnClass(name = "org.springframework.web.server.WebFilter")
	@Conditional(OnIdempotencyKeyRoutesCondition.class)
	static final class ReactiveIdempotencyKeyConfiguration {

		@Bean
		@ConditionalOnMissingBean
		IdempotencyKeyWebFilter redkitIdempotencyKeyWebFilter(IdempotentSteps steps,
				ObjectProvider<ReactiveIdempotentSteps> reactiveSteps, IdempotencyProperties properties,
				IdempotencyKeyScopeResolver scopes, ObjectProvider<JsonMapper> jsonMapper) {
			return new IdempotencyKeyWebFilter(
					reactiveSteps.getIfAvailable(() -> new DefaultReactiveIdempotentSteps(steps)),
					IdempotencyPropertiesMapper.http(properties,
							jsonMapper.getIfAvailable(JsonMapper.builder()::build)),
					IdempotencyPropertiesMapper.scopes(properties, scopes), properties.getHttp().getOrder());
		}

	}

	// the capability's section of the redkit endpoint, when the endpoint is available
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
	@ConditionalOnAvailableEndpoint(RedkitEndpoint.class)
	@EnableConfigurationProperties(RedkitEndpointProperties.class)
	static final class StepEndpointConfiguration {

		@Bean
		@ConditionalOnMissingBean
		StepEndpointSection redkitStepEndpointSection(RedisScriptRunner runner, RedisKeyspace keyspace,
				RedkitEndpointProperties endpoint) {
			return new StepEndpointSection(runner, keyspace, endpoint.toSettings());
		}

	}

}
