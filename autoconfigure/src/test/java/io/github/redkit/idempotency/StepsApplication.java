package io.github.redkit.idempotency;

import java.util.EnumMap;
import java.util.Map;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.autoconfigure.budget.BudgetAutoConfiguration;
import io.github.redkit.autoconfigure.idempotency.IdempotencyAutoConfiguration;
import io.github.redkit.budget.Budgets;
import io.github.redkit.testsupport.RedisTopology;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * One application context per topology with idempotent steps, budgets and annotated
 * services, shared by the tests of a JVM (started on first use, closed at exit).
 */
@Configuration(proxyBeanMethods = false)
@ImportAutoConfiguration({ DataRedisAutoConfiguration.class, RedkitAutoConfiguration.class,
		IdempotencyAutoConfiguration.class, BudgetAutoConfiguration.class, AopAutoConfiguration.class })
class StepsApplication {

	private static final Map<RedisTopology, ConfigurableApplicationContext> contexts = new EnumMap<>(
			RedisTopology.class);

	static synchronized ConfigurableApplicationContext context(RedisTopology topology) {
		return contexts.computeIfAbsent(topology, (key) -> {
			ConfigurableApplicationContext context = new SpringApplicationBuilder(StepsApplication.class)
				.web(WebApplicationType.NONE)
				.properties(topology.springProperties())
				.properties("redkit.key-prefix=redkit-test", "redkit.idempotency.in-progress-lease=2s",
						"spring.main.banner-mode=off")
				.run();
			Runtime.getRuntime().addShutdownHook(new Thread(context::close));
			return context;
		});
	}

	@Bean
	AuctionService auctionService(Budgets budgets, IdempotentSteps steps) {
		return new AuctionService(budgets, steps);
	}

	@Bean
	Handlers handlers() {
		return new Handlers();
	}

}
