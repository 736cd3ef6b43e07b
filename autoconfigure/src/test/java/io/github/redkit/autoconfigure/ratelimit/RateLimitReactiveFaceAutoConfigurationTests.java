package io.github.redkit.autoconfigure.ratelimit;

import java.util.List;

import io.github.redkit.autoconfigure.ReactiveFaceTests;
import io.github.redkit.ratelimit.RateLimitDecision;
import io.github.redkit.ratelimit.RateLimitPolicy;
import io.github.redkit.ratelimit.RateLimiter;
import io.github.redkit.ratelimit.ReactiveRateLimiter;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import static org.assertj.core.api.Assertions.assertThat;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;

/**
 * Which applications get the reactive face: a reactive web application by default, any
 * application that asks, none that declines, and never a servlet application that did not
 * ask.
 */
class RateLimitReactiveFaceAutoConfigurationTests extends ReactiveFaceTests {

	RateLimitReactiveFaceAutoConfigurationTests() {
		super(RateLimitAutoConfiguration.class, RateLimiter.class, ReactiveRateLimiter.class);
	}

	@Test
	void aReactiveWebApplicationCanDecline() {
		configured(new ReactiveWebApplicationContextRunner()).withPropertyValues("redkit.reactive.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(ReactiveRateLimiter.class));
	}

	@Test
	void anApplicationsOwnReactiveRateLimiterWins() {
		ReactiveRateLimiter own = new ReactiveRateLimiter() {

			@Override
			public Mono<RateLimitDecision> tryAcquire(String limitName, List<String> keys, int cost) {
				return Mono.empty();
			}

			@Override
			public Mono<RateLimitDecision> tryAcquire(String limitName, String limitId, RateLimitPolicy policy,
					List<String> keys, int cost) {
				return Mono.empty();
			}

		};
		configured(new ReactiveWebApplicationContextRunner()).withBean(ReactiveRateLimiter.class, () -> own)
			.run((context) -> assertThat(context.getBean(ReactiveRateLimiter.class)).isSameAs(own));
	}

}
