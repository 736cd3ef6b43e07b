package io.github.redkit.autoconfigure.idempotency;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.autoconfigure.StartFailures;
import io.github.redkit.autoconfigure.budget.BudgetAutoConfiguration;
import io.github.redkit.budget.Budgets;
import io.github.redkit.budget.internal.RedisBudgets;
import io.github.redkit.idempotency.IdempotentStep;
import io.github.redkit.idempotency.IdempotentSteps;
import io.github.redkit.idempotency.internal.IdempotentStepAdvisor;
import io.github.redkit.idempotency.internal.RedisIdempotentSteps;
import io.github.redkit.idempotency.web.IdempotencyExceptionHandler;
import io.github.redkit.testsupport.RedisServers;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import static org.assertj.core.api.Assertions.assertThat;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.core.Ordered;

class IdempotencyAutoConfigurationTests {

	private static final AutoConfigurations CONFIGURATIONS = AutoConfigurations.of(DataRedisAutoConfiguration.class,
			RedkitAutoConfiguration.class, IdempotencyAutoConfiguration.class, BudgetAutoConfiguration.class,
			AopAutoConfiguration.class);

	private final ApplicationContextRunner runner = new ApplicationContextRunner().withConfiguration(CONFIGURATIONS)
		.withPropertyValues(RedisServers.standalone().springProperties());

	@Test
	void providesStepsBudgetsAndTheAdvisorInItsOrder() {
		this.runner.run((context) -> {
			assertThat(context).hasSingleBean(IdempotentSteps.class)
				.hasSingleBean(Budgets.class)
				.hasSingleBean(IdempotentStepAdvisor.class)
				.doesNotHaveBean(IdempotencyExceptionHandler.class);
			assertThat(context.getBean(IdempotentStepAdvisor.class).getOrder())
				.isEqualTo(Ordered.LOWEST_PRECEDENCE - 200);
		});
	}

	@Test
	void aBadAnnotationFailsTheStartNamingTheMethod() {
		StartFailures.assertFailsToStart(this.runner, BlankStep.class, "BlankStep.run()",
				"needs an operation and a step");
		StartFailures.assertFailsToStart(this.runner, AfterItself.class, "AfterItself.run()",
				"cannot come after itself");
		StartFailures.assertFailsToStart(this.runner, NegativeTtl.class, "NegativeTtl.run()", "ttl");
		StartFailures.assertFailsToStart(this.runner, MalformedOperation.class, "MalformedOperation.run()",
				"not a valid SpEL expression");
	}

	@Test
	void theOrderCanBeChanged() {
		this.runner.withPropertyValues("redkit.idempotency.order=5")
			.run((context) -> assertThat(context.getBean(IdempotentStepAdvisor.class).getOrder()).isEqualTo(5));
	}

	@Test
	void eachCanBeTurnedOff() {
		this.runner.withPropertyValues("redkit.idempotency.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(IdempotentSteps.class)
				.doesNotHaveBean(IdempotentStepAdvisor.class)
				.hasSingleBean(Budgets.class));
		this.runner.withPropertyValues("redkit.budget.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(Budgets.class).hasSingleBean(IdempotentSteps.class));
	}

	@Test
	void beansCanBeReplaced() {
		this.runner.withBean("mySteps", IdempotentSteps.class, () -> null, (definition) -> {
		}).run((context) -> assertThat(context).hasBean("mySteps").doesNotHaveBean("redkitIdempotentSteps"));
		this.runner.withBean("myBudgets", Budgets.class, () -> null, (definition) -> {
		}).run((context) -> assertThat(context).hasBean("myBudgets").doesNotHaveBean("redkitBudgets"));
	}

	@Test
	void countsOutcomesWithoutKeysInTags() {
		this.runner.withBean(SimpleMeterRegistry.class).run((context) -> {
			SimpleMeterRegistry registry = context.getBean(SimpleMeterRegistry.class);
			IdempotentSteps steps = context.getBean(IdempotentSteps.class);
			steps.claim("metrics:" + System.nanoTime(), "bid", java.util.Set.of(), null);
			Budgets budgets = context.getBean(Budgets.class);
			String budget = "metrics:" + System.nanoTime();
			budgets.create(budget, 10);
			budgets.spend(budget, 5);
			budgets.spend(budget, 50);
			assertThat(registry.get("redkit.idempotency.steps")
				.tag("step", "bid")
				.tag("outcome", "claimed")
				.counter()
				.count()).isEqualTo(1);
			assertThat(registry.get("redkit.budget.changes")
				.tag("operation", "spend")
				.tag("outcome", "applied")
				.counter()
				.count()).isEqualTo(1);
			assertThat(registry.get("redkit.budget.changes").tag("outcome", "refused").counter().count()).isEqualTo(1);
			assertThat(context.getBean(IdempotentSteps.class)).isInstanceOf(RedisIdempotentSteps.class);
			assertThat(budgets).isInstanceOf(RedisBudgets.class);
		});
	}

	@Test
	void registersTheMvcAnswersInAServletApplication() {
		new WebApplicationContextRunner().withConfiguration(CONFIGURATIONS)
			.withPropertyValues(RedisServers.standalone().springProperties())
			.run((context) -> assertThat(context).hasSingleBean(IdempotencyExceptionHandler.class));
	}

	@Test
	void badPropertiesFailStartUpNamingTheProperty() {
		this.runner.withPropertyValues("redkit.idempotency.in-progress-lease=0s")
			.run((context) -> assertThat(context.getStartupFailure())
				.hasStackTraceContaining("redkit.idempotency.in-progress-lease must be > 0"));
		this.runner.withPropertyValues("redkit.idempotency.ttl=-1s")
			.run((context) -> assertThat(context.getStartupFailure())
				.hasStackTraceContaining("redkit.idempotency.ttl must be > 0"));
		this.runner.withPropertyValues("redkit.budget.operation-ttl=0s")
			.run((context) -> assertThat(context.getStartupFailure())
				.hasStackTraceContaining("redkit.budget.operation-ttl must be > 0"));
	}

	static class BlankStep {

		@IdempotentStep(operation = "#id", step = " ")
		void run(String id) {
		}

	}

	static class AfterItself {

		@IdempotentStep(operation = "#id", step = "bid", after = "bid")
		void run(String id) {
		}

	}

	static class NegativeTtl {

		@IdempotentStep(operation = "#id", step = "bid", ttl = "-1h")
		void run(String id) {
		}

	}

	static class MalformedOperation {

		@IdempotentStep(operation = "#id +", step = "bid")
		void run(String id) {
		}

	}

}
