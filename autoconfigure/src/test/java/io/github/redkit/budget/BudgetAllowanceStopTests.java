package io.github.redkit.budget;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.autoconfigure.budget.BudgetAutoConfiguration;
import io.github.redkit.core.DrainingCallers;
import io.github.redkit.testsupport.RedisServers;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.function.SingletonSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A hot budget's local allowance while the application stops with spends still in flight,
 * as graceful shutdown drains requests after Redkit's beans stopped and while Redis is
 * still there: once the application has stopped, balance + spent = the budget, to the
 * unit. A batch taken during the drain, or whose take was in flight when the batches were
 * given back, used to stay spent for ever.
 */
class BudgetAllowanceStopTests {

	private static final long BUDGET = 10_000_000;

	private static final AtomicLong spent = new AtomicLong();

	private static final AtomicLong spends = new AtomicLong();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedkitAutoConfiguration.class,
				BudgetAutoConfiguration.class))
		.withPropertyValues(RedisServers.standalone().springProperties())
		.withPropertyValues("redkit.key-prefix=bas-" + System.nanoTime(), "redkit.budget.timeout=15s");

	@Test
	void whatIsSpentWhileTheApplicationStopsIsAllThatLeavesTheBalance() {
		this.runner.run((context) -> context.getBean(Budgets.class).create("hot", BUDGET));
		spent.set(0);
		spends.set(0);
		this.runner
			.withPropertyValues("redkit.budget.local-allowances.hot.size=50",
					"redkit.budget.local-allowances.hot.max-age=1h")
			.withUserConfiguration(Spenders.class)
			.run((context) -> {
				DrainingCallers spenders = context.getBean(DrainingCallers.class);
				await().atMost(Duration.ofSeconds(30)).until(() -> spends.get() >= 2_000);
				context.close();
				assertThat(spenders.failures()).isEmpty();
			});
		assertThat(spends.get()).isGreaterThan(2_000);
		this.runner.run((context) -> assertThat(context.getBean(Budgets.class).remaining("hot"))
			.as("the balance once the application stopped, after %d spends", spends.get())
			.isEqualTo(BUDGET - spent.get()));
	}

	@Configuration(proxyBeanMethods = false)
	static class Spenders {

		// looked up, not injected: a lifecycle bean that depends on Budgets would be
		// stopped before it, as the web server's graceful shutdown is not
		@Bean
		DrainingCallers spenders(BeanFactory beanFactory) {
			Supplier<Budgets> lookUp = SingletonSupplier.of(() -> beanFactory.getBean(Budgets.class));
			return new DrainingCallers(8, () -> {
				Budgets budgets = lookUp.get();
				long amount = 1 + ThreadLocalRandom.current().nextInt(3);
				SpendResult result = ThreadLocalRandom.current().nextBoolean() ? budgets.spend("hot", amount)
						: budgets.spendAsync("hot", amount).join();
				assertThat(result.applied()).isTrue();
				spent.addAndGet(amount);
				spends.incrementAndGet();
			});
		}

	}

}
