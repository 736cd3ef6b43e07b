package io.github.redkit.autoconfigure.budget;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.budget.BudgetMetrics;
import io.github.redkit.budget.Budgets;
import io.github.redkit.budget.MicrometerBudgetMetrics;
import io.github.redkit.budget.RedisBudgets;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedisScriptRunner;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Budgets in integer minor units: the {@link Budgets} bean and its metrics.
 */
@AutoConfiguration(after = RedkitAutoConfiguration.class)
@ConditionalOnBean(RedisScriptRunner.class)
@ConditionalOnBooleanProperty(name = "redkit.budget.enabled", matchIfMissing = true)
@EnableConfigurationProperties(BudgetProperties.class)
public final class BudgetAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	Budgets redkitBudgets(RedisScriptRunner runner, RedisKeyspace keyspace, BudgetProperties properties,
			ObjectProvider<BudgetMetrics> metrics) {
		BudgetPropertiesMapper.checked(properties);
		return new RedisBudgets(runner, keyspace, properties.getTimeout(), properties.getOperationTtl(),
				metrics.getIfAvailable(() -> BudgetMetrics.NONE));
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "io.micrometer.core.instrument.MeterRegistry")
	static class MetricsConfiguration {

		@Bean
		@ConditionalOnMissingBean
		BudgetMetrics redkitBudgetMetrics(ObjectProvider<MeterRegistry> registry) {
			return new MicrometerBudgetMetrics(registry::getIfAvailable);
		}

	}

}
