package io.github.redkit.autoconfigure.actuate;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import io.github.redkit.actuate.ActivityViews;
import io.github.redkit.actuate.BudgetViews;
import io.github.redkit.actuate.ControlViews;
import io.github.redkit.actuate.EndpointSettings;
import io.github.redkit.actuate.LockViews;
import io.github.redkit.actuate.QueueViews;
import io.github.redkit.actuate.RateLimitViews;
import io.github.redkit.actuate.RedkitEndpoint;
import io.github.redkit.actuate.RedkitEndpointSection;
import io.github.redkit.actuate.StepViews;
import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.autoconfigure.budget.BudgetAutoConfiguration;
import io.github.redkit.autoconfigure.idempotency.IdempotencyAutoConfiguration;
import io.github.redkit.autoconfigure.lock.LockAutoConfiguration;
import io.github.redkit.autoconfigure.pubsub.RedkitPubSubAutoConfiguration;
import io.github.redkit.autoconfigure.queue.QueueAutoConfiguration;
import io.github.redkit.autoconfigure.queue.QueueProperties;
import io.github.redkit.autoconfigure.ratelimit.RateLimitAutoConfiguration;
import io.github.redkit.autoconfigure.ratelimit.RateLimitProperties;
import io.github.redkit.budget.Budgets;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedisScriptRunner;
import io.github.redkit.idempotency.IdempotentSteps;
import io.github.redkit.lock.DistributedLocks;
import io.github.redkit.pubsub.ControlState;
import io.github.redkit.queue.QueueTemplate;
import io.github.redkit.ratelimit.RateLimiter;
import io.github.redkit.region.RegionOutbox;
import io.micrometer.core.instrument.MeterRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.EndpointAccessResolver;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.util.ClassUtils;

/**
 * The {@code redkit} actuator endpoint, with a view for every capability present.
 */
@AutoConfiguration(after = { RedkitAutoConfiguration.class, RateLimitAutoConfiguration.class,
		LockAutoConfiguration.class, QueueAutoConfiguration.class, BudgetAutoConfiguration.class,
		IdempotencyAutoConfiguration.class, RedkitPubSubAutoConfiguration.class })
@ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
@ConditionalOnBean(RedisScriptRunner.class)
@ConditionalOnAvailableEndpoint(RedkitEndpoint.class)
@EnableConfigurationProperties(RedkitEndpointProperties.class)
public final class RedkitEndpointAutoConfiguration {

	private static final boolean MICROMETER_PRESENT = ClassUtils.isPresent(
			"io.micrometer.core.instrument.MeterRegistry", RedkitEndpointAutoConfiguration.class.getClassLoader());

	@Bean
	@ConditionalOnMissingBean
	RedkitEndpoint redkitEndpoint(RedisScriptRunner runner, RedisKeyspace keyspace, RedkitEndpointProperties properties,
			ObjectProvider<EndpointAccessResolver> accessResolver, ObjectProvider<RateLimiter> rateLimiter,
			ObjectProvider<RateLimitProperties> rateLimitProperties, ObjectProvider<DistributedLocks> locks,
			ObjectProvider<QueueTemplate> queueTemplate, ObjectProvider<QueueProperties> queueProperties,
			ObjectProvider<Budgets> budgets, ObjectProvider<IdempotentSteps> steps,
			ObjectProvider<ControlState> controlState, ObjectProvider<RegionOutbox> regionOutbox,
			ObjectProvider<RedkitEndpointSection> sections, BeanFactory beanFactory) {
		EndpointSettings settings = properties.toSettings();
		RateLimiter limiter = rateLimiter.getIfUnique();
		RateLimitProperties limits = rateLimitProperties.getIfUnique();
		RateLimitViews rateLimitViews = (limiter != null) ? new RateLimitViews(limiter,
				(limits != null) ? limits.getLimits().keySet() : List.of(), runner.connectionFactory(), keyspace)
				: null;
		RegionOutbox outbox = regionOutbox.getIfUnique();
		if (rateLimitViews != null && limits != null && outbox != null) {
			// the limits marked global count in the regional counters of this region
			rateLimitViews.setGlobalLimits(runner, outbox, limits.globalLimitNames());
		}
		LockViews lockViews = (locks.getIfUnique() != null) ? new LockViews(runner, keyspace, settings) : null;
		QueueTemplate queues = queueTemplate.getIfUnique();
		QueueProperties queueNames = queueProperties.getIfUnique();
		QueueViews queueViews = (queues != null)
				? new QueueViews(queues, (queueNames != null) ? queueNames.getQueues().keySet() : List.of(),
						runner.connectionFactory(), keyspace, settings)
				: null;
		Budgets budget = budgets.getIfUnique();
		StepViews stepViews = (steps.getIfUnique() != null) ? new StepViews(runner, keyspace, settings) : null;
		ControlState control = controlState.getIfUnique();
		ControlViews controlViews = (control != null)
				? new ControlViews(control, runner.connectionFactory(), keyspace, settings) : null;
		return new RedkitEndpoint(access(accessResolver.getIfAvailable()), rateLimitViews, lockViews, queueViews,
				(budget != null) ? new BudgetViews(budget) : null, stepViews, controlViews,
				MICROMETER_PRESENT ? Meters.activity(beanFactory) : null, sections.orderedStream().toList());
	}

	// what Boot's resolver decides (management.endpoint.redkit.access, capped by
	// management.endpoints.access.max-permitted); without one, the endpoint's default
	private static Access access(@Nullable EndpointAccessResolver resolver) {
		return (resolver != null) ? resolver.accessFor(EndpointId.of("redkit"), Access.READ_ONLY) : Access.READ_ONLY;
	}

	// loaded only when Micrometer is on the class path
	private static final class Meters {

		static ActivityViews activity(BeanFactory beanFactory) {
			ObjectProvider<MeterRegistry> registry = beanFactory.getBeanProvider(MeterRegistry.class);
			return new ActivityViews(registry::getIfUnique);
		}

	}

}
