package io.github.redkit.autoconfigure.ratelimit;

import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import io.github.redkit.core.ServerNeed;
import io.github.redkit.core.ServerNeeds;
import io.github.redkit.actuate.RedkitEndpoint;
import io.github.redkit.autoconfigure.ConditionalOnRedkitReactive;
import io.github.redkit.autoconfigure.EarlyProperties;
import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.KeyExpressionEvaluator;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.ratelimit.RateLimitDecider;
import io.github.redkit.ratelimit.RateLimitDecisionListener;
import io.github.redkit.ratelimit.RateLimitPlanResolver;
import io.github.redkit.ratelimit.RateLimiter;
import io.github.redkit.ratelimit.ReactiveRateLimiter;
import io.github.redkit.ratelimit.actuate.GlobalRateLimitCounters;
import io.github.redkit.ratelimit.actuate.RateLimitEndpointSection;
import io.github.redkit.ratelimit.actuate.LocalRateLimitHealthIndicator;
import io.github.redkit.ratelimit.internal.DefaultReactiveRateLimiter;
import io.github.redkit.ratelimit.internal.LocalRateLimiter;
import io.github.redkit.ratelimit.internal.RateLimitInstances;
import io.github.redkit.ratelimit.internal.RateLimitedAdvisor;
import io.github.redkit.ratelimit.internal.RateLimitedInterceptor;
import io.github.redkit.ratelimit.internal.RedisRateLimiter;
import io.github.redkit.ratelimit.web.RateLimitExceptionHandler;
import io.github.redkit.ratelimit.web.RateLimitExchangeHeaders;
import io.github.redkit.ratelimit.web.RateLimitResponseHeaders;
import io.github.redkit.ratelimit.web.RateLimitRouteFilter;

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
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.http.ProblemDetail;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.util.function.SingletonSupplier;
import org.springframework.web.filter.reactive.ServerWebExchangeContextFilter;

/**
 * Rate limiting: the {@link RateLimiter} bean, the {@code @RateLimited} advisor,
 * Micrometer metrics and the Spring MVC mapping of refusals to {@code 429}.
 */
@AutoConfiguration(after = RedkitAutoConfiguration.class)
@ConditionalOnBean(RedisScriptRunner.class)
@ConditionalOnBooleanProperty(name = "redkit.rate-limit.enabled", matchIfMissing = true)
@EnableConfigurationProperties(RateLimitProperties.class)
public final class RateLimitAutoConfiguration {

	// what the server doctor checks for this capability
	@Bean
	@ConditionalOnMissingBean(name = "redkitRateLimitServerNeeds")
	ServerNeeds redkitRateLimitServerNeeds() {
		return ServerNeeds.of("rate-limit", ServerNeed.NO_EVICTION);
	}

	@Bean
	@ConditionalOnMissingBean
	RateLimiter redkitRateLimiter(RedisScriptRunner runner, RedisKeyspace keyspace, RateLimitProperties properties,
			RedkitMetrics metrics, ObjectProvider<RedkitObservations> observations,
			ObjectProvider<RateLimitDecider> deciders, ObjectProvider<LocalRateLimiter> localLimiter) {
		List<RateLimitDecider> found = deciders.orderedStream().toList();
		Set<String> decided = found.stream()
			.flatMap((decider) -> decider.limitNames().stream())
			.collect(Collectors.toSet());
		properties.globalLimitNames()
			.stream()
			.filter((name) -> !decided.contains(name))
			.findFirst()
			.ifPresent((name) -> {
				throw new IllegalStateException("redkit.rate-limit.limits." + name
						+ ".global needs several regions: redkit.regions.local, with 'rate-limits' in"
						+ " redkit.regions.replicate");
			});
		return new RedisRateLimiter(runner, keyspace, RateLimitPropertiesMapper.policies(properties),
				RateLimitPropertiesMapper.settings(properties, localLimiter.getIfAvailable()), metrics,
				observations.getIfAvailable(() -> RedkitObservations.NONE), found);
	}

	// failure-mode local: the in-process limiter and the instance count it divides by
	@Configuration(proxyBeanMethods = false)
	@Conditional(OnLocalFailureModeCondition.class)
	static class LocalFailureModeConfiguration {

		@Bean
		@ConditionalOnMissingBean
		RateLimitInstances redkitRateLimitInstances(RedisScriptRunner runner, RedisKeyspace keyspace,
				RateLimitProperties properties) {
			return RateLimitPropertiesMapper.instances(properties, runner, keyspace);
		}

		@Bean
		@ConditionalOnMissingBean
		LocalRateLimiter redkitLocalRateLimiter(RateLimitInstances instances, RateLimitProperties properties,
				ApplicationContext context) {
			return RateLimitPropertiesMapper.localLimiter(properties, instances, context.getClassLoader());
		}

		@Configuration(proxyBeanMethods = false)
		@ConditionalOnClass(HealthIndicator.class)
		static class LocalFailureModeHealthConfiguration {

			@Bean
			@ConditionalOnMissingBean(name = "redkitRateLimitHealthIndicator")
			LocalRateLimitHealthIndicator redkitRateLimitHealthIndicator(LocalRateLimiter localLimiter) {
				return new LocalRateLimitHealthIndicator(localLimiter);
			}

		}

	}

	@Bean
	@ConditionalOnMissingBean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static RateLimitedAdvisor redkitRateLimitedAdvisor(ObjectProvider<RateLimiter> rateLimiter,
			ObjectProvider<KeyExpressionEvaluator> evaluator, ObjectProvider<RateLimitDecisionListener> listeners,
			ObjectProvider<RateLimitPlanResolver> plans, Environment environment) {
		int order = EarlyProperties.bind(environment, "redkit.rate-limit", RateLimitProperties.class).getOrder();
		return new RateLimitedAdvisor(new RateLimitedInterceptor(SingletonSupplier.of(rateLimiter::getObject),
				SingletonSupplier.of(evaluator::getObject),
				SingletonSupplier.of(() -> listeners.orderedStream().toList()),
				SingletonSupplier.of(() -> plans.getIfAvailable(() -> RateLimitPlanResolver.BY_NAME))), order);
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnRedkitReactive
	static class ReactiveRateLimitConfiguration {

		@Bean
		@ConditionalOnMissingBean
		ReactiveRateLimiter redkitReactiveRateLimiter(RateLimiter rateLimiter) {
			return new DefaultReactiveRateLimiter(rateLimiter);
		}

	}

	// the refusals' answers are plain controller advice: the same on Spring MVC and
	// WebFlux
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnWebApplication
	@ConditionalOnClass(ProblemDetail.class)
	static class RateLimitWebConfiguration {

		@Bean
		@ConditionalOnMissingBean
		RateLimitExceptionHandler redkitRateLimitExceptionHandler() {
			return new RateLimitExceptionHandler();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
	@ConditionalOnClass(ProblemDetail.class)
	static class RateLimitServletConfiguration {

		@Bean
		@ConditionalOnMissingBean
		@ConditionalOnBooleanProperty(name = "redkit.rate-limit.response-headers", matchIfMissing = true)
		RateLimitResponseHeaders redkitRateLimitResponseHeaders() {
			return new RateLimitResponseHeaders();
		}

	}

	// an allowed reactive call has no thread-bound request: its headers are written
	// through the exchange in the Reactor context; routes are limited by a WebFilter
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
	@ConditionalOnClass(ProblemDetail.class)
	@ConditionalOnRedkitReactive
	static class RateLimitWebFluxConfiguration {

		@Bean
		@ConditionalOnMissingBean
		@ConditionalOnBooleanProperty(name = "redkit.rate-limit.response-headers", matchIfMissing = true)
		RateLimitExchangeHeaders redkitRateLimitExchangeHeaders() {
			return new RateLimitExchangeHeaders();
		}

		// Spring Boot does not register it; RateLimitExchangeHeaders reads the exchange
		// it puts in the Reactor context
		@Bean
		@ConditionalOnMissingBean
		@ConditionalOnBooleanProperty(name = "redkit.rate-limit.response-headers", matchIfMissing = true)
		ServerWebExchangeContextFilter redkitServerWebExchangeContextFilter() {
			return new ServerWebExchangeContextFilter();
		}

		@Bean
		@ConditionalOnMissingBean
		@Conditional(OnRateLimitRoutesCondition.class)
		RateLimitRouteFilter redkitRateLimitRouteFilter(ReactiveRateLimiter rateLimiter, RateLimitProperties properties,
				ObjectProvider<ServerCodecConfigurer> codecs) {
			return new RateLimitRouteFilter(rateLimiter, RateLimitRoutesMapper.routes(properties),
					codecs.getIfAvailable(ServerCodecConfigurer::create).getWriters(), properties.getWeb().getOrder());
		}

	}

	// the capability's section of the redkit endpoint, when the endpoint is available
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
	@ConditionalOnAvailableEndpoint(RedkitEndpoint.class)
	static final class RateLimitEndpointConfiguration {

		@Bean
		@ConditionalOnMissingBean
		RateLimitEndpointSection redkitRateLimitEndpointSection(RateLimiter rateLimiter, RateLimitProperties properties,
				RedisScriptRunner runner, RedisKeyspace keyspace, ObjectProvider<GlobalRateLimitCounters> global) {
			return new RateLimitEndpointSection(rateLimiter, properties.getLimits().keySet(),
					runner.connectionFactory(), keyspace, global.getIfUnique());
		}

	}

}
