package io.github.redkit.concurrency;

import java.time.Duration;
import java.util.Arrays;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.autoconfigure.concurrency.ConcurrencyLimitAutoConfiguration;
import io.github.redkit.core.KeyExpressionException;
import io.github.redkit.testsupport.RedisServers;
import io.github.redkit.testsupport.ScannedKeys;
import org.junit.jupiter.api.Test;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import org.springframework.aop.Advisor;
import org.springframework.aop.framework.Advised;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.resilience.InvocationRejectedException;
import org.springframework.resilience.annotation.ConcurrencyLimit;
import org.springframework.resilience.annotation.EnableResilientMethods;

/**
 * {@code @ConcurrencyLimited} on a real Redis: named and inline limits per SpEL key, the
 * refusal, a null key, an inconsistent annotation, and how it composes with Spring
 * Framework's local {@code @ConcurrencyLimit}.
 */
class ConcurrencyLimitedAnnotationTests {

	private final String prefix = "conc-ann-" + UUID.randomUUID();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
				RedkitAutoConfiguration.class, ConcurrencyLimitAutoConfiguration.class))
		.withPropertyValues(RedisServers.standalone().springProperties())
		.withPropertyValues("redkit.concurrency-limit.timeout=5s", "redkit.key-prefix=" + this.prefix,
				"redkit.concurrency-limit.limits.exports.limit=1");

	@Test
	void aNamedLimitPerKeyRefusesASecondCallInFlightAndLetsOtherKeysRun() {
		this.runner.withUserConfiguration(Services.class).run((context) -> {
			ExportService service = context.getBean(ExportService.class);
			Gate gate = new Gate();
			CompletableFuture<String> running = CompletableFuture.supplyAsync(() -> service.export("acme", gate));
			gate.awaitEntered();
			assertThatExceptionOfType(ConcurrencyLimitExceededException.class)
				.isThrownBy(() -> service.export("acme", Gate.OPEN))
				.satisfies((ex) -> {
					assertThat(ex.getLimitName()).isEqualTo("exports");
					assertThat(ex.getLimit()).isEqualTo(1);
				});
			assertThat(service.export("globex", Gate.OPEN)).isEqualTo("globex");
			gate.open();
			assertThat(running.get(10, TimeUnit.SECONDS)).isEqualTo("acme");
			assertThat(service.export("acme", Gate.OPEN)).as("the permit was given back").isEqualTo("acme");
		});
	}

	@Test
	void anInlineLimitIsNamedAfterItsMethod() {
		this.runner.withUserConfiguration(Services.class).run((context) -> {
			ExportService service = context.getBean(ExportService.class);
			Gate gate = new Gate();
			CompletableFuture<String> running = CompletableFuture.supplyAsync(() -> service.inline("r1", gate));
			gate.awaitEntered();
			assertThatExceptionOfType(ConcurrencyLimitExceededException.class)
				.isThrownBy(() -> service.inline("r1", Gate.OPEN))
				.satisfies((ex) -> {
					assertThat(ex.getLimitName()).isEqualTo("ExportService.inline");
					assertThat(ex.getLimit()).isEqualTo(1);
				});
			gate.open();
			running.get(10, TimeUnit.SECONDS);
			assertThat(ScannedKeys.matching(context.getBean(StringRedisTemplate.class), this.prefix + ":concurrency:*"))
				.isEmpty();
		});
	}

	@Test
	void aKeyThatEvaluatesToNullIsAClearError() {
		this.runner.withUserConfiguration(Services.class).run((context) -> {
			ExportService service = context.getBean(ExportService.class);
			assertThatExceptionOfType(KeyExpressionException.class).isThrownBy(() -> service.export(null, Gate.OPEN))
				.withMessageContaining("#tenant")
				.withMessageContaining("ExportService.export()");
		});
	}

	@Test
	void anAnnotationWithANameAndALimitFailsWhenTheBeanIsCreated() {
		this.runner.withUserConfiguration(BadService.class)
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("@ConcurrencyLimited on BadService.run()")
				.hasMessageContaining("not both"));
	}

	@Test
	void springsLocalConcurrencyLimitAppliesFirstSoARejectedCallTakesNoRedisPermit() {
		this.runner.withUserConfiguration(ResilientServices.class).run((context) -> {
			ThrottledService service = context.getBean(ThrottledService.class);
			Advisor[] advisors = ((Advised) service).getAdvisors();
			assertThat(Arrays.stream(advisors).map((advisor) -> advisor.getAdvice().getClass().getSimpleName()))
				.as("Spring's advisor is put before the existing ones")
				.containsExactly("ConcurrencyLimitInterceptor", "ConcurrencyLimitedInterceptor");
			Gate gate = new Gate();
			CompletableFuture<String> running = CompletableFuture.supplyAsync(() -> service.run("k", gate));
			gate.awaitEntered();
			assertThatExceptionOfType(InvocationRejectedException.class).isThrownBy(() -> service.run("k", Gate.OPEN));
			StringRedisTemplate redis = context.getBean(StringRedisTemplate.class);
			// an inline limit is kept under the method's full signature, hashed when long
			Set<String> keys = ScannedKeys.matching(redis, this.prefix + ":concurrency:*");
			assertThat(keys).hasSize(1);
			String key = keys.iterator().next();
			assertThat(redis.opsForZSet().zCard(key)).as("only the running call holds a Redis permit").isEqualTo(1);
			gate.open();
			running.get(10, TimeUnit.SECONDS);
		});
	}

	/**
	 * Holds a call inside its method until the test opens it.
	 */
	static final class Gate {

		static final Gate OPEN = new Gate();

		static {
			OPEN.open();
		}

		private final CountDownLatch entered = new CountDownLatch(1);

		private final CountDownLatch open = new CountDownLatch(1);

		void pass() {
			this.entered.countDown();
			try {
				assertThat(this.open.await(10, TimeUnit.SECONDS)).isTrue();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

		void awaitEntered() throws InterruptedException {
			assertThat(this.entered.await(10, TimeUnit.SECONDS)).isTrue();
		}

		void open() {
			this.open.countDown();
		}

	}

	static class ExportService {

		@ConcurrencyLimited(value = "exports", key = "#tenant")
		String export(String tenant, Gate gate) {
			gate.pass();
			return tenant;
		}

		@ConcurrencyLimited(limit = 1, lease = "5s", key = "#report")
		String inline(String report, Gate gate) {
			gate.pass();
			return report;
		}

	}

	static class BadService {

		@ConcurrencyLimited(name = "exports", limit = 2)
		void run() {
		}

	}

	static class ThrottledService {

		@ConcurrencyLimit(limit = 1, policy = ConcurrencyLimit.ThrottlePolicy.REJECT)
		@ConcurrencyLimited(limit = 5, key = "#key")
		String run(String key, Gate gate) {
			gate.pass();
			return key;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Services {

		@Bean
		ExportService exportService() {
			return new ExportService();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableResilientMethods
	static class ResilientServices {

		@Bean
		ThrottledService throttledService() {
			return new ThrottledService();
		}

	}

}
