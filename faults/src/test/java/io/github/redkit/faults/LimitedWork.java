package io.github.redkit.faults;

import io.github.redkit.concurrency.ConcurrencyLimited;
import reactor.core.publisher.Mono;

import org.springframework.stereotype.Component;

/**
 * The reactive face of concurrency limits: work that holds a permit of
 * {@link ConcurrencyLimitScenario#LIMIT} until its {@code Mono} completes, fails or is
 * cancelled.
 */
@Component
class LimitedWork {

	@ConcurrencyLimited(value = ConcurrencyLimitScenario.LIMIT, key = "#key")
	public Mono<String> run(String key, Mono<String> work) {
		return work;
	}

}
