package io.github.redkit.resilience4j;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.redkit.testsupport.RedisServers;
import io.github.resilience4j.ratelimiter.RateLimiter;
import io.github.resilience4j.ratelimiter.RateLimiterRegistry;
import io.github.resilience4j.ratelimiter.RequestNotPermitted;
import io.github.resilience4j.ratelimiter.event.RateLimiterEvent;
import io.github.resilience4j.reactor.ratelimiter.operator.RateLimiterOperator;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Resilience4j's {@code @RateLimiter}, its registry, events, meters and Reactor operator
 * in a Boot 4 application whose rate limiters are backed by Redkit limits, over a real
 * Redis.
 */
@SpringBootTest(classes = Resilience4jTestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.NONE,
		properties = { "spring.config.location=classpath:docs/resilience4j.yml", "redkit.metrics.gauge-refresh=50ms" })
class Resilience4jRateLimiterTests {

	@Autowired
	PartnerClient client;

	@Autowired
	RateLimiterRegistry registry;

	@Autowired
	io.github.redkit.ratelimit.RateLimiter redkit;

	@Autowired
	PermitsLeft permitsLeft;

	@Autowired
	MeterRegistry meters;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		for (String property : RedisServers.standalone().springProperties()) {
			int equals = property.indexOf('=');
			registry.add(property.substring(0, equals), () -> property.substring(equals + 1));
		}
		registry.add("redkit.key-prefix", Resilience4jTestApplication::newKeyPrefix);
	}

	@Test
	void theAnnotatedMethodRunsUntilTheRedkitLimitRefusesThenItsFallbackIsCalled() {
		assertThat(this.registry.rateLimiter("partnerApi")).isInstanceOf(RedkitRateLimiter.class);
		for (int i = 0; i < 5; i++) {
			assertThat(this.client.quote("sku-" + i)).isEqualTo("quote for sku-" + i);
		}
		assertThat(this.client.quote("sku-5")).isEqualTo("no quote for sku-5 now");
	}

	@Test
	void successesAndRefusalsAreResilience4jEventsAndThePermitsLeftAMeterReadFromRedis() {
		RateLimiter limiter = this.registry.rateLimiter("metered");
		List<RateLimiterEvent> events = new CopyOnWriteArrayList<>();
		limiter.getEventPublisher().onEvent(events::add);
		// read in the background: a scrape asks for the value a later one gets
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(permitsMeter()).isEqualTo(3));
		for (int i = 0; i < 4; i++) {
			try {
				this.client.metered();
			}
			catch (RequestNotPermitted ex) {
				assertThat(i).as("the refused call").isEqualTo(3);
			}
		}
		assertThat(events).extracting(RateLimiterEvent::getEventType)
			.containsExactly(RateLimiterEvent.Type.SUCCESSFUL_ACQUIRE, RateLimiterEvent.Type.SUCCESSFUL_ACQUIRE,
					RateLimiterEvent.Type.SUCCESSFUL_ACQUIRE, RateLimiterEvent.Type.FAILED_ACQUIRE);
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(permitsMeter()).isZero());
		assertThat(limiter.getRateLimiterConfig().getLimitForPeriod()).isEqualTo(3);
		assertThat(limiter.getRateLimiterConfig().getLimitRefreshPeriod()).isEqualTo(Duration.ofHours(1));
	}

	@Test
	void aMonoThroughResilience4jsOperatorIsRefusedOnceTheRedkitLimitIsUsedUp() {
		RateLimiter limiter = this.registry.rateLimiter("operator");
		Mono<String> call = Mono.fromSupplier(() -> "called").transformDeferred(RateLimiterOperator.of(limiter));
		StepVerifier.create(call).expectNext("called").verifyComplete();
		StepVerifier.create(call).expectNext("called").verifyComplete();
		StepVerifier.create(call).expectError(RequestNotPermitted.class).verify(Duration.ofSeconds(10));
	}

	@Test
	void anAnnotatedMonoMethodGetsItsFallbackOnRefusal() {
		StepVerifier.create(this.client.quoteLater("a")).expectNext("quote for a").verifyComplete();
		StepVerifier.create(this.client.quoteLater("b")).expectNext("quote for b").verifyComplete();
		StepVerifier.create(this.client.quoteLater("c")).expectNext("no quote for c now").verifyComplete();
	}

	@Test
	void aCallerWithATimeoutWaitsUntilRedisGivesAPermitBack() {
		RateLimiter limiter = this.registry.rateLimiter("waiting");
		assertThat(limiter.acquirePermission()).isTrue();
		long start = System.nanoTime();
		assertThat(limiter.acquirePermission()).as("permitted within the 5s timeout").isTrue();
		assertThat(Duration.ofNanos(System.nanoTime() - start)).as("waited for the 300ms window")
			.isGreaterThan(Duration.ofMillis(100));
	}

	@Test
	void aCallerAskingForMorePermitsThanAWindowHoldsIsRefusedWithoutWaiting() {
		RateLimiter limiter = this.registry.rateLimiter("waiting");
		long start = System.nanoTime();
		assertThat(limiter.acquirePermission(2)).isFalse();
		assertThat(Duration.ofNanos(System.nanoTime() - start)).as("not the 5s timeout")
			.isLessThan(Duration.ofSeconds(2));
	}

	@Test
	void aCallerWhosePermitComesBackAfterItsTimeoutIsRefusedAtOnce() {
		RateLimiter limiter = this.registry.rateLimiter("impatient");
		assertThat(limiter.acquirePermission()).isTrue();
		assertThat(limiter.reservePermission()).isEqualTo(-1);
		assertThat(limiter.acquirePermission()).isFalse();
		assertThat(limiter.getMetrics().getNumberOfWaitingThreads()).isZero();
	}

	@Test
	void drainingTakesEveryPermitLeftSoThatAnotherInstanceIsRefused() {
		RateLimiter limiter = this.registry.rateLimiter("drained");
		List<RateLimiterEvent> events = new CopyOnWriteArrayList<>();
		limiter.getEventPublisher().onEvent(events::add);
		assertThat(limiter.acquirePermission(3)).isTrue();
		limiter.drainPermissions();
		assertThat(events).last()
			.satisfies((event) -> assertThat(event.getEventType()).isEqualTo(RateLimiterEvent.Type.DRAINED))
			.satisfies((event) -> assertThat(event.getNumberOfPermits()).isEqualTo(7));
		RateLimiter otherInstance = new RedkitRateLimiter("drained", limiter.getRateLimiterConfig(), Map.of(),
				this.redkit, "drained", "drained", this.permitsLeft);
		assertThat(otherInstance.getMetrics().getAvailablePermissions()).isZero();
		assertThat(otherInstance.acquirePermission()).isFalse();
	}

	@Test
	void changingTheLimitForPeriodRedefinesTheRedkitLimitsFirstWindowHere() {
		RateLimiter limiter = this.registry.rateLimiter("changed");
		assertThat(limiter.acquirePermission(2)).isTrue();
		assertThat(limiter.acquirePermission()).isFalse();
		limiter.changeLimitForPeriod(3);
		assertThat(limiter.getRateLimiterConfig().getLimitForPeriod()).isEqualTo(3);
		assertThat(this.redkit.policy("changed"))
			.hasValueSatisfying((policy) -> assertThat(policy.windows().get(0).limit()).isEqualTo(3));
		assertThat(limiter.acquirePermission()).as("the log holds one more call").isTrue();
		limiter.changeTimeoutDuration(Duration.ofMillis(1));
		assertThat(limiter.getRateLimiterConfig().getTimeoutDuration()).isEqualTo(Duration.ofMillis(1));
	}

	@Test
	void badInputIsRefusedNamingItsParameter() {
		RateLimiter limiter = this.registry.rateLimiter("partnerApi");
		assertThatIllegalArgumentException().isThrownBy(() -> limiter.acquirePermission(0))
			.withMessageContaining("permits");
		assertThatIllegalArgumentException().isThrownBy(() -> limiter.reservePermission(-1))
			.withMessageContaining("permits");
		assertThatIllegalArgumentException().isThrownBy(() -> limiter.changeLimitForPeriod(0))
			.withMessageContaining("limitForPeriod");
	}

	private double permitsMeter() {
		return this.meters.get("resilience4j.ratelimiter.available.permissions").tag("name", "metered").gauge().value();
	}

}
