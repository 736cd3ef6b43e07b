package io.github.redkit.autoconfigure.budget;

import io.github.redkit.core.ServerNeed;
import io.github.redkit.core.ServerNeeds;
import io.github.redkit.actuate.RedkitEndpoint;
import io.github.redkit.autoconfigure.ConditionalOnRedkitReactive;
import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.budget.Budgets;
import io.github.redkit.budget.ReactiveBudgets;
import io.github.redkit.budget.actuate.BudgetEndpointSection;
import io.github.redkit.budget.internal.DefaultReactiveBudgets;
import io.github.redkit.budget.internal.RedisBudgets;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.core.internal.ReplayWindow;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Budgets in integer minor units: the {@link Budgets} bean, its metrics and, for reactive
 * applications, its {@link ReactiveBudgets} face.
 */
@AutoConfiguration(after = RedkitAutoConfiguration.class)
@ConditionalOnBean(RedisScriptRunner.class)
@ConditionalOnBooleanProperty(name = "redkit.budget.enabled", matchIfMissing = true)
@EnableConfigurationProperties(BudgetProperties.class)
public final class BudgetAutoConfiguration {

	// what the server doctor checks for this capability
	@Bean
	@ConditionalOnMissingBean(name = "redkitBudgetServerNeeds")
	ServerNeeds redkitBudgetServerNeeds() {
		return ServerNeeds.of("budget", ServerNeed.NO_EVICTION, ServerNeed.PERSISTENCE, ServerNeed.REPLICATED_WRITES);
	}

	@Bean
	@ConditionalOnMissingBean
	Budgets redkitBudgets(RedisScriptRunner runner, RedisKeyspace keyspace, BudgetProperties properties,
			RedkitMetrics metrics, ObjectProvider<RedkitObservations> observations,
			ObjectProvider<RedisConnectionFactory> connectionFactory) {
		BudgetPropertiesMapper.checked(properties);
		RedisBudgets budgets = new RedisBudgets(runner, keyspace, properties.getTimeout(), properties.getOperationTtl(),
				metrics, observations.getIfAvailable(() -> RedkitObservations.NONE),
				BudgetPropertiesMapper.allowances(properties));
		// until when Lettuce may send a command again: how long a generated operation id
		// is kept
		budgets.setCommandTimeout(ReplayWindow.commandTimeout(connectionFactory.getIfAvailable()));
		return budgets;
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnRedkitReactive
	static class ReactiveBudgetsConfiguration {

		@Bean
		@ConditionalOnMissingBean
		ReactiveBudgets redkitReactiveBudgets(Budgets budgets) {
			return new DefaultReactiveBudgets(budgets);
		}

	}

	// the capability's section of the redkit endpoint, when the endpoint is available
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
	@ConditionalOnAvailableEndpoint(RedkitEndpoint.class)
	static final class BudgetEndpointConfiguration {

		@Bean
		@ConditionalOnMissingBean
		BudgetEndpointSection redkitBudgetEndpointSection(Budgets budgets) {
			return new BudgetEndpointSection(budgets);
		}

	}

}
