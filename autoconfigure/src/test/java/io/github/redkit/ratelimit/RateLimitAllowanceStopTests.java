package io.github.redkit.ratelimit;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.autoconfigure.ratelimit.RateLimitAutoConfiguration;
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
 * A hot identifier's local allowance while the application stops with calls still in
 * flight, as graceful shutdown drains requests after Redkit's beans stopped and while
 * Redis is still there: once the application has stopped, Redis counts exactly the calls
 * that were allowed; nothing taken stays held. A batch taken during the drain, or whose
 * take was in flight when the batches were given back, used to stay counted until its
 * window ended (under-admission).
 */
class RateLimitAllowanceStopTests {

	private static final long LIMIT = 100_000_000;

	private static final AtomicLong allowed = new AtomicLong();

	private static final AtomicLong calls = new AtomicLong();

	// a day-long fixed window: what is given back lands in the window it was taken in
	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedkitAutoConfiguration.class,
				RateLimitAutoConfiguration.class))
		.withPropertyValues(RedisServers.standalone().springProperties())
		.withPropertyValues("redkit.key-prefix=ras-" + System.nanoTime(), "redkit.rate-limit.timeout=15s",
				"redkit.rate-limit.limits.hot.algorithm=fixed-window",
				"redkit.rate-limit.limits.hot.windows[0].limit=" + LIMIT,
				"redkit.rate-limit.limits.hot.windows[0].period=1d");

	@Test
	void onceTheApplicationStoppedRedisCountsExactlyTheCallsAllowed() {
		allowed.set(0);
		calls.set(0);
		this.runner
			.withPropertyValues("redkit.rate-limit.limits.hot.local-allowance.size=50",
					"redkit.rate-limit.limits.hot.local-allowance.max-age=1h")
			.withUserConfiguration(Callers.class)
			.run((context) -> {
				DrainingCallers callers = context.getBean(DrainingCallers.class);
				await().atMost(Duration.ofSeconds(30)).until(() -> calls.get() >= 2_000);
				context.close();
				assertThat(callers.failures()).isEmpty();
			});
		assertThat(allowed.get()).isGreaterThan(2_000);
		this.runner.run((context) -> assertThat(context.getBean(RateLimiter.class).tryAcquire("hot", "api").remaining())
			.as("what is left once the application stopped, after %d allowed calls", allowed.get())
			.isEqualTo(LIMIT - allowed.get() - 1));
	}

	@Configuration(proxyBeanMethods = false)
	static class Callers {

		// looked up, not injected: a lifecycle bean that depends on the limiter would be
		// stopped before it, as the web server's graceful shutdown is not
		@Bean
		DrainingCallers callers(BeanFactory beanFactory) {
			Supplier<RateLimiter> lookUp = SingletonSupplier.of(() -> beanFactory.getBean(RateLimiter.class));
			return new DrainingCallers(8, () -> {
				RateLimiter limiter = lookUp.get();
				RateLimitDecision decision = ThreadLocalRandom.current().nextBoolean()
						? limiter.tryAcquire("hot", List.of("api"), 1)
						: limiter.tryAcquireAsync("hot", List.of("api"), 1).join();
				assertThat(decision.allowed()).isTrue();
				allowed.incrementAndGet();
				calls.incrementAndGet();
			});
		}

	}

}
