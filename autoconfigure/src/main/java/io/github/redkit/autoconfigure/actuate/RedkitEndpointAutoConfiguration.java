package io.github.redkit.autoconfigure.actuate;

import java.util.List;

import io.github.redkit.actuate.BudgetViews;
import io.github.redkit.actuate.LockViews;
import io.github.redkit.actuate.QueueViews;
import io.github.redkit.actuate.RateLimitViews;
import io.github.redkit.actuate.RedkitEndpoint;
import io.github.redkit.actuate.RedkitEndpointProperties;
import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.autoconfigure.budget.BudgetAutoConfiguration;
import io.github.redkit.autoconfigure.lock.LockAutoConfiguration;
import io.github.redkit.autoconfigure.queue.QueueAutoConfiguration;
import io.github.redkit.autoconfigure.queue.QueueProperties;
import io.github.redkit.autoconfigure.ratelimit.RateLimitAutoConfiguration;
import io.github.redkit.autoconfigure.ratelimit.RateLimitProperties;
import io.github.redkit.budget.Budgets;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedisScriptRunner;
import io.github.redkit.lock.DistributedLocks;
import io.github.redkit.queue.QueueTemplate;
import io.github.redkit.ratelimit.RateLimiter;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The {@code redkit} actuator endpoint, with a view for every capability present.
 */
@AutoConfiguration(after = { RedkitAutoConfiguration.class, RateLimitAutoConfiguration.class,
		LockAutoConfiguration.class, QueueAutoConfiguration.class, BudgetAutoConfiguration.class })
@ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
@ConditionalOnBean(RedisScriptRunner.class)
@ConditionalOnAvailableEndpoint(RedkitEndpoint.class)
@EnableConfigurationProperties(RedkitEndpointProperties.class)
public final class RedkitEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RedkitEndpoint redkitEndpoint(RedisConnectionFactory connectionFactory, RedisKeyspace keyspace,
			RedkitEndpointProperties properties, ObjectProvider<RateLimiter> rateLimiter,
			ObjectProvider<RateLimitProperties> rateLimitProperties, ObjectProvider<DistributedLocks> locks,
			ObjectProvider<QueueTemplate> queueTemplate, ObjectProvider<QueueProperties> queueProperties,
			ObjectProvider<Budgets> budgets) {
		RateLimiter limiter = rateLimiter.getIfUnique();
		RateLimitProperties limits = rateLimitProperties.getIfUnique();
		RateLimitViews rateLimitViews = (limiter != null) ? new RateLimitViews(limiter,
				(limits != null) ? limits.getLimits().keySet() : List.of(), connectionFactory, keyspace) : null;
		LockViews lockViews = (locks.getIfUnique() != null) ? new LockViews(connectionFactory, keyspace, properties)
				: null;
		QueueTemplate queues = queueTemplate.getIfUnique();
		QueueProperties queueNames = queueProperties.getIfUnique();
		QueueViews queueViews = (queues != null)
				? new QueueViews(queues, (queueNames != null) ? queueNames.getQueues().keySet() : List.of(),
						connectionFactory, keyspace, properties)
				: null;
		Budgets budget = budgets.getIfUnique();
		return new RedkitEndpoint(rateLimitViews, lockViews, queueViews,
				(budget != null) ? new BudgetViews(budget) : null);
	}

}
