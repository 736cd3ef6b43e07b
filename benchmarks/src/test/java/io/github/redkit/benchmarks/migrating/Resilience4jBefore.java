package io.github.redkit.benchmarks.migrating;

import io.github.resilience4j.bulkhead.annotation.Bulkhead;
import io.github.resilience4j.circuitbreaker.annotation.CircuitBreaker;
import io.github.resilience4j.ratelimiter.annotation.RateLimiter;

import org.springframework.stereotype.Service;

/**
 * The Resilience4j side of {@code docs/migrating/resilience4j.md}: a method under a rate
 * limiter, a bulkhead and a circuit breaker, with a fallback. Compiled against
 * Resilience4j's annotations, not run.
 */
class Resilience4jBefore {

	// tag::service[]
	@Service
	static class Backend {

		// each instance lets 10 a second through and 5 at once: N instances, N times that
		@RateLimiter(name = "backend", fallbackMethod = "cached")
		@Bulkhead(name = "backend")
		@CircuitBreaker(name = "backend")
		public String quote(String symbol) {
			return symbol + " 101.5";
		}

		public String cached(String symbol, Throwable refused) {
			return symbol + " cached";
		}

	}
	// end::service[]

}
