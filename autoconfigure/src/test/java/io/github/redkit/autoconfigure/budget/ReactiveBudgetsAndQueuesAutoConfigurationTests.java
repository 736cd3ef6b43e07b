package io.github.redkit.autoconfigure.budget;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.autoconfigure.queue.QueueAutoConfiguration;
import io.github.redkit.budget.Budgets;
import io.github.redkit.budget.ReactiveBudgets;
import io.github.redkit.budget.internal.DefaultReactiveBudgets;
import io.github.redkit.queue.QueueTemplate;
import io.github.redkit.queue.ReactiveQueueTemplate;
import io.github.redkit.testsupport.RedisServers;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.AbstractApplicationContextRunner;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

/**
 * A reactive application gets the reactive faces of budgets and queues; a servlet
 * application gets neither; an application's own wins.
 */
@Tag("tests-apart")
class ReactiveBudgetsAndQueuesAutoConfigurationTests {

	private static final AutoConfigurations CONFIGURATIONS = AutoConfigurations.of(DataRedisAutoConfiguration.class,
			RedkitAutoConfiguration.class, BudgetAutoConfiguration.class, QueueAutoConfiguration.class);

	private static <R extends AbstractApplicationContextRunner<R, ?, ?>> R configured(R runner) {
		return runner.withConfiguration(CONFIGURATIONS)
			.withPropertyValues(RedisServers.standalone().springProperties());
	}

	@Test
	void aReactiveWebApplicationGetsBoth() {
		configured(new ReactiveWebApplicationContextRunner()).run((context) -> {
			assertThat(context).hasSingleBean(Budgets.class).hasSingleBean(ReactiveBudgets.class);
			assertThat(context).hasSingleBean(QueueTemplate.class).hasSingleBean(ReactiveQueueTemplate.class);
		});
	}

	@Test
	void aServletApplicationGetsNeither() {
		configured(new WebApplicationContextRunner()).run((context) -> {
			assertThat(context).hasSingleBean(Budgets.class).doesNotHaveBean(ReactiveBudgets.class);
			assertThat(context).hasSingleBean(QueueTemplate.class).doesNotHaveBean(ReactiveQueueTemplate.class);
		});
	}

	@Test
	void anApplicationsOwnReactiveBudgetsWins() {
		configured(new ReactiveWebApplicationContextRunner())
			.withBean("own", ReactiveBudgets.class, () -> new DefaultReactiveBudgets(null))
			.run((context) -> assertThat(context).getBean(ReactiveBudgets.class).isSameAs(context.getBean("own")));
	}

}
