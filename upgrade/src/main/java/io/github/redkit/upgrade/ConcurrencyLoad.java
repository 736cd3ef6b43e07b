package io.github.redkit.upgrade;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;

import io.github.redkit.concurrency.ConcurrencyLimiter;
import io.github.redkit.concurrency.ConcurrencyPermit;

/**
 * Takes a permit of one concurrency limit, holds it a moment and gives it back: each hold
 * is written from just after the permit was granted to just before it is given back.
 */
final class ConcurrencyLoad {

	static final String LIMIT = "upgrade";

	private final ConcurrencyLimiter limiter;

	private final HistoryLog history;

	ConcurrencyLoad(ConcurrencyLimiter limiter, HistoryLog history) {
		this.limiter = limiter;
		this.history = history;
	}

	void step() {
		Optional<ConcurrencyPermit> permit = this.history.call("concurrency", "acquire", LIMIT,
				() -> this.limiter.tryAcquire(LIMIT, "k"),
				(granted, fields) -> fields.put("outcome", granted.isPresent() ? "ok" : "refused"));
		if (permit == null || permit.isEmpty()) {
			return;
		}
		long start = HistoryLog.micros();
		LockSupport.parkNanos(3_000_000 + ThreadLocalRandom.current().nextInt(4_000_000));
		this.history.write("concurrency", "hold", LIMIT, start, HistoryLog.micros(), Map.of("outcome", "ok"));
		this.history.call("concurrency", "release", LIMIT, () -> {
			permit.get().close();
			return true;
		}, (released, fields) -> fields.put("outcome", "ok"));
	}

}
