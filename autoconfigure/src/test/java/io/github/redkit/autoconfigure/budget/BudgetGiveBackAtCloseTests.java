package io.github.redkit.autoconfigure.budget;

import java.time.Duration;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.budget.Budgets;
import io.github.redkit.core.OneConnectionPool;
import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A local allowance's unused part, given back as the application closes while the pool of
 * a factory that shares no connection is held by another borrower longer than the stop
 * waits for it (5 × {@code redkit.budget.timeout}): the factory's pool closes right
 * after, with the give-back still waiting for it, so that part is lost as if the instance
 * had died holding it (docs/budgets.md): the balance stays lower by at most the batch's
 * unused part, and a WARN says how much.
 */
@ExtendWith(OutputCaptureExtension.class)
class BudgetGiveBackAtCloseTests {

	@PrivateRedis
	private static RedisServer redis;

	private final String keyPrefix = "bgc-" + System.nanoTime();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedkitAutoConfiguration.class,
				BudgetAutoConfiguration.class))
		.withPropertyValues("redkit.key-prefix=" + this.keyPrefix);

	@Test
	void aBatchGivenBackAtACloseWhileThePoolIsHeldLongerThanTheStopWaitsIsLostWithAWarn(CapturedOutput output)
			throws Exception {
		OneConnectionPool pool = OneConnectionPool.on(redis);
		Thread[] borrower = new Thread[1];
		// the stop waits 5 × 1 s for its give-back; the pool is held 8 s
		this.runner.withBean(LettuceConnectionFactory.class, pool::factory)
			.withPropertyValues("redkit.budget.timeout=1s", "redkit.budget.local-allowances.hot.size=30",
					"redkit.budget.local-allowances.hot.max-age=1h")
			.run((context) -> {
				Budgets budgets = context.getBean(Budgets.class);
				await().atMost(Duration.ofSeconds(20)).ignoreExceptions().untilAsserted(() -> {
					budgets.create("hot", 100);
					assertThat(budgets.remaining("hot")).isEqualTo(100);
				});
				assertThat(budgets.spend("hot", 1).applied()).isTrue();
				borrower[0] = pool.hold(8);
				context.close();
			});
		borrower[0].join(20_000);
		long[] balance = new long[1];
		this.runner.withPropertyValues(redis.springProperties())
			.run((context) -> balance[0] = context.getBean(Budgets.class).remaining("hot"));
		assertThat(balance[0]).as("the balance once the pool freed: 1 spent, the batch's unused 29 given back or lost")
			.isIn(100L - 30, 100L - 1);
		if (balance[0] < 100 - 1) {
			await("the WARN of the 29 lost").atMost(Duration.ofSeconds(10))
				.untilAsserted(() -> assertThat(output).contains("WARN").contains("could not give back 29"));
		}
	}

}
