package io.github.redkit.upgrade;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;

import io.github.redkit.lock.DistributedLocks;
import io.github.redkit.lock.LockHandle;

/**
 * Takes one lock, holds it for a moment and releases it: each hold is written with its
 * fencing token, from just after the acquisition returned to just before the release.
 */
final class LockLoad {

	static final String KEY = "upgrade-lock";

	private final DistributedLocks locks;

	private final HistoryLog history;

	LockLoad(DistributedLocks locks, HistoryLog history) {
		this.locks = locks;
		this.history = history;
	}

	void step() {
		Optional<LockHandle> handle = this.history.call("lock", "acquire", KEY,
				() -> this.locks.tryLock(KEY, Duration.ofMillis(50), Duration.ofSeconds(5)),
				(acquired, fields) -> fields.put("outcome", acquired.isPresent() ? "ok" : "refused"));
		if (handle == null || handle.isEmpty()) {
			return;
		}
		LockHandle held = handle.get();
		long start = HistoryLog.micros();
		LockSupport.parkNanos(200_000 + ThreadLocalRandom.current().nextInt(1_000_000));
		long end = HistoryLog.micros();
		this.history.write("lock", "hold", KEY, start, end,
				Map.of("outcome", "ok", "token", held.fencingToken(), "held", held.isHeld()));
		this.history.call("lock", "release", KEY, () -> {
			held.close();
			return true;
		}, (released, fields) -> fields.put("outcome", "ok"));
	}

}
