package io.github.redkit.core;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.autoconfigure.concurrency.ConcurrencyLimitAutoConfiguration;
import io.github.redkit.autoconfigure.lock.LockAutoConfiguration;
import io.github.redkit.autoconfigure.ratelimit.RateLimitAutoConfiguration;
import io.github.redkit.concurrency.ConcurrencyLimited;
import io.github.redkit.lock.DistributedLock;
import io.github.redkit.lock.DistributedLocks;
import io.github.redkit.lock.LockHandle;
import io.github.redkit.ratelimit.RateLimited;
import io.github.redkit.testsupport.RedisTopology;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import org.springframework.aop.Advisor;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each subscription of a {@code Mono} or {@code Flux} that a Redkit annotation guards
 * runs the method through every interceptor inside Redkit's again: a second
 * {@code block()}, a {@code retry}, a {@code repeat} or a concurrent subscription does
 * not skip a transaction, a lock or any other advice ordered after Redkit's.
 */
@Tag("tests-apart")
class ReactiveResubscriptionTests {

	private static final Duration BOUND = Duration.ofSeconds(20);

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
				RedkitAutoConfiguration.class, RateLimitAutoConfiguration.class, LockAutoConfiguration.class,
				ConcurrencyLimitAutoConfiguration.class))
		.withPropertyValues(RedisTopology.STANDALONE.springProperties())
		.withPropertyValues("redkit.key-prefix=rrs-" + UUID.randomUUID(), "redkit.rate-limit.timeout=10s",
				"redkit.lock.redis-timeout=10s", "redkit.concurrency-limit.timeout=10s")
		.withUserConfiguration(Services.class);

	@Test
	void aRateLimitedMonoSubscribedTwiceRunsTheInnerAdviceTwice() {
		this.runner.run((context) -> {
			Service service = context.getBean(Service.class);
			CountingAdvice advice = context.getBean(CountingAdvice.class);
			Mono<String> call = service.rateLimited();
			call.block(BOUND);
			call.block(BOUND);
			assertThat(service.calls()).isEqualTo(2);
			assertThat(advice.runs()).as("the advice inside Redkit's ran on each subscription").isEqualTo(2);
		});
	}

	@Test
	void aLockedMonoSubscribedTwiceRunsTheInnerAdviceTwice() {
		this.runner.run((context) -> {
			Service service = context.getBean(Service.class);
			CountingAdvice advice = context.getBean(CountingAdvice.class);
			Mono<String> call = service.locked();
			call.block(BOUND);
			call.block(BOUND);
			assertThat(advice.runs()).isEqualTo(2);
		});
	}

	@Test
	void aConcurrencyLimitedFluxRepeatedRunsTheInnerAdviceEachTime() {
		this.runner.run((context) -> {
			Service service = context.getBean(Service.class);
			CountingAdvice advice = context.getBean(CountingAdvice.class);
			assertThat(service.concurrencyLimited().repeat(2).collectList().block(BOUND)).hasSize(6);
			assertThat(advice.runs()).isEqualTo(3);
		});
	}

	@Test
	void aRetriedCallRunsUnderTheLockOfTheAnnotationInsideTheRateLimit() {
		this.runner.run((context) -> {
			Service service = context.getBean(Service.class);
			Mono<Boolean> call = service.rateLimitedAndLocked();
			// the body tells whether the lock was free: held by the annotation, it never
			// is
			assertThat(call.block(BOUND)).isFalse();
			assertThat(call.block(BOUND)).as("the second subscription held the lock too").isFalse();
			assertThat(call.repeat(3).collectList().block(BOUND)).containsOnly(false);
		});
	}

	@Test
	void concurrentSubscriptionsOfOneMonoEachRunTheInnerAdvice() {
		this.runner.run((context) -> {
			Service service = context.getBean(Service.class);
			CountingAdvice advice = context.getBean(CountingAdvice.class);
			Mono<String> call = service.rateLimited();
			List<String> results = Flux.range(0, 32)
				.flatMap((i) -> call.subscribeOn(Schedulers.parallel()), 16)
				.collectList()
				.block(BOUND);
			assertThat(results).hasSize(32);
			assertThat(service.calls()).isEqualTo(32);
			assertThat(advice.runs()).isEqualTo(32);
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class Services {

		@Bean
		Service service(DistributedLocks locks) {
			return new Service(locks);
		}

		@Bean
		CountingAdvice countingAdvice() {
			return new CountingAdvice();
		}

		// ordered after every Redkit advisor: the way a @Transactional is by default
		@Bean
		Advisor countingAdvisor(CountingAdvice advice) {
			DefaultPointcutAdvisor advisor = new DefaultPointcutAdvisor(
					AnnotationMatchingPointcut.forClassAnnotation(Counted.class), advice);
			advisor.setOrder(Ordered.LOWEST_PRECEDENCE);
			return advisor;
		}

	}

	@Retention(RetentionPolicy.RUNTIME)
	@Target(ElementType.TYPE)
	@interface Counted {

	}

	static class CountingAdvice implements MethodInterceptor {

		private final AtomicInteger runs = new AtomicInteger();

		@Override
		public Object invoke(MethodInvocation invocation) throws Throwable {
			// the annotated methods only, not the test's reads of the bean
			if (Publisher.class.isAssignableFrom(invocation.getMethod().getReturnType())) {
				this.runs.incrementAndGet();
			}
			return invocation.proceed();
		}

		int runs() {
			return this.runs.get();
		}

	}

	@Counted
	static class Service {

		private final DistributedLocks locks;

		private final AtomicInteger calls = new AtomicInteger();

		Service(DistributedLocks locks) {
			this.locks = locks;
		}

		@RateLimited(limit = 1000, period = "1h")
		Mono<String> rateLimited() {
			this.calls.incrementAndGet();
			return Mono.just("done");
		}

		@DistributedLock(key = "'alone'")
		Mono<String> locked() {
			return Mono.just("done");
		}

		@ConcurrencyLimited(limit = 5)
		Flux<Integer> concurrencyLimited() {
			return Flux.just(1, 2);
		}

		@RateLimited(limit = 1000, period = "1h")
		@DistributedLock(key = "'guarded'")
		Mono<Boolean> rateLimitedAndLocked() {
			// off the non-blocking threads: the probe waits for Redis
			return Mono.fromCallable(() -> {
				Optional<LockHandle> free = this.locks.tryLock("guarded", Duration.ZERO, Duration.ofSeconds(10));
				free.ifPresent(LockHandle::close);
				return free.isPresent();
			}).subscribeOn(Schedulers.boundedElastic());
		}

		int calls() {
			return this.calls.get();
		}

	}

}
