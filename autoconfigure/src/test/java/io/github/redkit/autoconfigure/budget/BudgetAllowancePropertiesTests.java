package io.github.redkit.autoconfigure.budget;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.budget.Budgets;
import io.github.redkit.testsupport.RedisServers;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A budget's local allowance from {@code redkit.budget.local-allowances}: applied to its
 * budget's spends, and a value that cannot work fails start-up naming its property.
 */
class BudgetAllowancePropertiesTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedkitAutoConfiguration.class,
				BudgetAutoConfiguration.class))
		.withPropertyValues(RedisServers.standalone().springProperties())
		.withPropertyValues("redkit.key-prefix=bap-" + System.nanoTime())
		// a fresh context's first call connects and loads its script: on a loaded machine
		// that took longer than the default 2 s, which this test is not about
		.withPropertyValues("redkit.budget.timeout=15s");

	@Test
	void aSpendOfAHotBudgetTakesABatchOfItsSize() {
		this.runner
			.withPropertyValues("redkit.budget.local-allowances.ads.size=100",
					"redkit.budget.local-allowances.ads.max-age=1m")
			.run((context) -> {
				Budgets budgets = context.getBean(Budgets.class);
				budgets.create("ads", 1_000);
				budgets.create("other", 1_000);
				assertThat(budgets.spend("ads", 1).remaining()).as("what this instance could still spend")
					.isEqualTo(999);
				assertThat(budgets.remaining("ads")).as("the balance without the batch").isEqualTo(900);
				assertThat(budgets.spend("other", 1).remaining()).isEqualTo(999);
				assertThat(budgets.remaining("other")).isEqualTo(999);
			});
	}

	@Test
	void whatABatchHoldsIsGivenBackWhenTheApplicationStops() {
		ApplicationContextRunner hot = this.runner.withPropertyValues("redkit.budget.local-allowances.ads.size=100",
				"redkit.budget.local-allowances.ads.max-age=1m");
		hot.run((context) -> {
			Budgets budgets = context.getBean(Budgets.class);
			budgets.create("ads", 1_000);
			budgets.spend("ads", 1);
			assertThat(budgets.remaining("ads")).isEqualTo(900);
		});
		this.runner.run((context) -> assertThat(context.getBean(Budgets.class).remaining("ads")).isEqualTo(999));
	}

	@Test
	void aSizeBelowOneFailsStartUpNamingTheProperty() {
		this.runner.withPropertyValues("redkit.budget.local-allowances.ads.size=0")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("redkit.budget.local-allowances.ads.size must be at least 1 (was 0)"));
	}

	@Test
	void aMaxAgeOfHalfTheOperationTtlOrMoreFailsStartUpNamingTheProperties() {
		this.runner
			.withPropertyValues("redkit.budget.local-allowances.ads.size=10",
					"redkit.budget.local-allowances.ads.max-age=1h", "redkit.budget.operation-ttl=2h")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("redkit.budget.local-allowances.ads.max-age must be less than half of "
						+ "redkit.budget.operation-ttl, PT2H (was PT1H)"));
	}

	@Test
	void aZeroMaxAgeFailsStartUpNamingTheProperty() {
		this.runner
			.withPropertyValues("redkit.budget.local-allowances.ads.size=10",
					"redkit.budget.local-allowances.ads.max-age=0s")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("redkit.budget.local-allowances.ads.max-age"));
	}

}
