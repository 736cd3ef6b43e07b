package io.github.redkit.benchmarks;

import reactor.core.publisher.Mono;

/**
 * A contender whose operation is a publisher: the runner keeps as many operations in
 * flight as it is asked for threads ({@code flatMap} with that concurrency, from one
 * subscription) instead of starting that many threads.
 */
interface ReactiveContender extends Contender {

	/**
	 * One operation, performed on subscription.
	 * @param iteration the operation's sequence number
	 * @return completes when the operation is done
	 */
	Mono<?> operation(long iteration);

	/**
	 * Performs one operation and waits for it: the sequential round-trip sample.
	 */
	@Override
	default void operate(int thread, long iteration) {
		operation(iteration).block();
	}

}
