package io.github.redkit.benchmarks;

import java.util.List;
import java.util.function.Function;

import io.github.redkit.testsupport.RedisServer;

/**
 * The contenders of one capability; the first one is the reference the others are
 * compared with.
 *
 * @param capability the capability, e.g. {@code rate limit}
 * @param contenders factories of the contenders, given the Redis to use
 */
public record Suite(String capability, List<Function<RedisServer, Contender>> contenders) {

	/**
	 * The suite with only some of its contenders.
	 * @param positions the positions to keep, in this order; all when empty
	 * @return the suite
	 */
	Suite only(List<Integer> positions) {
		if (positions.isEmpty()) {
			return this;
		}
		return new Suite(this.capability, positions.stream().map(this.contenders::get).toList());
	}

}
