package io.github.redkit.test.boot;

import java.util.List;

import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.ratelimit.RateLimitDecision;
import io.github.redkit.ratelimit.RateLimitPolicy;
import io.github.redkit.ratelimit.RateLimiter;
import org.assertj.core.api.AbstractAssert;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Assertions on whether a named rate limit would refuse an identifier now.
 * <p>
 * {@link RateLimiter} has no read-only decision, so the check takes no permit of the
 * limit itself: the identifier's counters are copied (same slot, same TTL) to keys of a
 * probe limit with the same policy, the bean decides on the copy, and the copy is
 * removed. The probe is counted in the metrics under the limit name {@value #PROBE}.
 */
public class RateLimiterAssert extends AbstractAssert<RateLimiterAssert, RateLimiter> {

	/** The name probe decisions are counted under. */
	public static final String PROBE = "redkit-test-probe";

	RateLimiterAssert(RateLimiter actual) {
		super(actual, RateLimiterAssert.class);
	}

	/**
	 * Verifies that the next call of {@code key} under {@code limitName} would be
	 * refused.
	 * @param limitName a named limit ({@code redkit.rate-limit.limits} or defined)
	 * @param key the identifier
	 * @return this
	 */
	public RateLimiterAssert isRateLimited(String limitName, String key) {
		RateLimitDecision decision = probe(limitName, key);
		if (decision.allowed()) {
			failWithMessage("Expected rate limit <%s> to refuse <%s> now, but it would allow a call (%d left after it)",
					limitName, key, decision.remaining());
		}
		return this;
	}

	/**
	 * Verifies that the next call of {@code key} under {@code limitName} would be
	 * allowed.
	 * @param limitName a named limit ({@code redkit.rate-limit.limits} or defined)
	 * @param key the identifier
	 * @return this
	 */
	public RateLimiterAssert isNotRateLimited(String limitName, String key) {
		RateLimitDecision decision = probe(limitName, key);
		if (!decision.allowed()) {
			failWithMessage("Expected rate limit <%s> to allow <%s> now, but a call would be refused (retry after %s)",
					limitName, key, decision.retryAfter());
		}
		return this;
	}

	private RateLimitDecision probe(String limitName, String key) {
		isNotNull();
		RateLimitPolicy policy = this.actual.policy(limitName)
			.orElseThrow(() -> new AssertionError("No rate limit named <" + limitName + ">"));
		RedkitTestRedis redis = RedkitTestRedis.of(RateLimiter.class, this.actual);
		RedisConnectionFactory factory = redis.connectionFactory();
		RedisKeyspace keyspace = new RedisKeyspace(redis.keyPrefix());
		// the identifier is the hash tag: the probe's keys share the slot of the real
		// ones
		String probeId = PROBE + ":" + limitName;
		String realKeys = keyspace.key("ratelimit").part(limitName).tag(key).build() + ":";
		String probeKeys = keyspace.key("ratelimit").part(probeId).tag(key).build() + ":";
		String probePattern = RedisKeys.globLiteral(probeKeys) + "*";
		RedisKeys.unlinkMatching(factory, probePattern);
		try {
			for (String real : RedisKeys.scan(factory, RedisKeys.globLiteral(realKeys) + "*")) {
				String suffix = real.substring(realKeys.length());
				// the algorithm's record, not a refund's marker next to it
				if (!suffix.contains(":")) {
					RedisKeys.copy(factory, real, probeKeys + suffix);
				}
			}
			return this.actual.tryAcquire(PROBE, probeId, policy, List.of(key), 1);
		}
		finally {
			RedisKeys.unlinkMatching(factory, probePattern);
		}
	}

}
