package io.github.redkit.upgrade;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

import io.github.redkit.ratelimit.RateLimitDecision;
import io.github.redkit.ratelimit.RateLimiter;

/**
 * Calls every configured limit on one key, flat out, from several threads: each allowed
 * decision is written with the Redis time it was counted at.
 */
final class RateLimitLoad {

	private final RateLimiter rateLimiter;

	private final HistoryLog history;

	private final List<String> limits;

	RateLimitLoad(RateLimiter rateLimiter, HistoryLog history, List<String> limits) {
		this.rateLimiter = rateLimiter;
		this.history = history;
		this.limits = limits;
	}

	void step() {
		String limit = this.limits.get(ThreadLocalRandom.current().nextInt(this.limits.size()));
		this.history.call("rate-limit", "acquire", limit, () -> this.rateLimiter.tryAcquire(limit, "k"),
				RateLimitLoad::answer);
	}

	private static void answer(RateLimitDecision decision, Map<String, Object> fields) {
		fields.put("outcome", decision.allowed() ? "ok" : "refused");
		fields.put("local", decision.local());
		if (decision.decidedAt() != null) {
			fields.put("at", HistoryLog.micros(decision.decidedAt()));
		}
	}

}
