package io.github.redkit.upgrade;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;

import io.github.redkit.actuate.EndpointSettings;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.lock.DistributedLocks;
import io.github.redkit.lock.LockHandle;
import io.github.redkit.lock.actuate.LockEndpointSection;
import io.github.redkit.lock.internal.HeldLocks;
import org.jspecify.annotations.Nullable;

/**
 * An operator's view of one lock beside its holders: takes it and releases it, lists the
 * held locks as the {@code redkit} endpoint does, or force-releases it, each with this
 * version's scripts, so that each version lists and forces a lock the other holds or last
 * freed (a freed record of this build keeps its releaser's token with a lease end of 0).
 * Each hold is written from the acquisition's call to the release's, with the interval it
 * was surely held ({@code from}, {@code to}) and its fencing token.
 */
final class LockForceLoad {

	static final String KEY = "upgrade-lock-forced";

	private final DistributedLocks locks;

	private final HeldLocks held;

	private final LockEndpointSection endpoint;

	private final HistoryLog history;

	LockForceLoad(DistributedLocks locks, RedisScriptRunner runner, RedisKeyspace keyspace, HistoryLog history) {
		this.locks = locks;
		this.held = new HeldLocks(runner, keyspace, Duration.ofSeconds(10));
		// the endpoint's own section, built here: the fleet exposes no endpoint; a SCAN
		// count that walks the fleet's keyspace in a call or two
		this.endpoint = new LockEndpointSection(this.held, runner,
				new EndpointSettings(false, Duration.ofSeconds(10), 1000, 100));
		this.history = history;
	}

	void step() {
		int choice = ThreadLocalRandom.current().nextInt(10);
		if (choice < 4) {
			hold();
		}
		else if (choice < 7) {
			list();
		}
		else {
			this.history.call("lock-force", "force", KEY, () -> this.held.forceRelease(this.held.storedKey(KEY)),
					(released, fields) -> {
						fields.put("outcome", "ok");
						fields.put("released", released);
					});
		}
	}

	private void hold() {
		long start = HistoryLog.micros();
		Optional<LockHandle> handle = this.history.call("lock-force", "acquire", KEY,
				() -> this.locks.tryLock(KEY, Duration.ZERO, Duration.ofSeconds(5)),
				(acquired, fields) -> fields.put("outcome", acquired.isPresent() ? "ok" : "refused"));
		if (handle == null || handle.isEmpty()) {
			return;
		}
		LockHandle lock = handle.get();
		long from = HistoryLog.micros();
		LockSupport.parkNanos(2_000_000 + ThreadLocalRandom.current().nextInt(6_000_000));
		long to = HistoryLog.micros();
		this.history.call("lock-force", "release", KEY, () -> {
			lock.close();
			return true;
		}, (released, fields) -> fields.put("outcome", "ok"));
		this.history.write("lock-force", "hold", KEY, start, HistoryLog.micros(),
				Map.of("outcome", "ok", "token", lock.fencingToken(), "from", from, "to", to));
	}

	@SuppressWarnings("unchecked")
	private void list() {
		this.history.call("lock-force", "list", KEY, () -> {
			@Nullable String cursor = null;
			do {
				Map<String, Object> page = this.endpoint.read(cursor, 100);
				for (Map<String, Object> lock : (List<Map<String, Object>>) Objects.requireNonNull(page.get("locks"))) {
					if (KEY.equals(lock.get("key"))) {
						// a lock of the previous layout may have no fencing token
						Object token = lock.get("fencingToken");
						return Optional.of((token != null) ? (Long) token : -1L);
					}
				}
				cursor = (String) page.get("cursor");
			}
			while (!"0".equals(cursor));
			return Optional.<Long>empty();
		}, (listed, fields) -> {
			fields.put("outcome", "ok");
			fields.put("listed", listed.isPresent());
			listed.ifPresent((token) -> fields.put("token", token));
		});
	}

}
