package io.github.redkit.upgrade;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;

import io.github.redkit.region.RegionRecoveringException;
import io.github.redkit.region.RegionalBudgets;
import io.github.redkit.region.RegionalCounters;

/**
 * A regional counter and an allotted regional budget, changed from every region; once
 * every change stopped, what each region sees is read until it holds still.
 */
final class RegionLoad {

	static final String COUNTER = "upgrade-counter";

	static final String BUDGET = "upgrade-regional";

	static final long SHARE = 1_000_000;

	private static final int IDS = 20_000;

	private final RegionalCounters counters;

	private final RegionalBudgets budgets;

	private final HistoryLog history;

	private final String region;

	RegionLoad(RegionalCounters counters, RegionalBudgets budgets, HistoryLog history, String region) {
		this.counters = counters;
		this.budgets = budgets;
		this.history = history;
		this.region = region;
	}

	/**
	 * Allots the budget (the fleet's first instance), and waits until this region sees
	 * it.
	 * @param regions every region's name
	 * @param allot whether this instance allots
	 */
	void prepare(java.util.List<String> regions, boolean allot) {
		long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
		if (allot) {
			Map<String, Long> shares = new java.util.LinkedHashMap<>();
			regions.forEach((region) -> shares.put(region, SHARE));
			this.history.call("region", "allot", BUDGET, () -> {
				while (true) {
					try {
						return this.budgets.allot(BUDGET, shares);
					}
					catch (RegionRecoveringException ex) {
						// a new region changes no budget until its replicators' first
						// round
						if (System.nanoTime() > deadline) {
							throw ex;
						}
						LockSupport.parkNanos(20_000_000);
					}
				}
			}, (allotted, fields) -> {
				fields.put("outcome", "ok");
				fields.put("created", allotted);
			});
		}
		// a region changes the budget once it holds its own slot (its share), not when it
		// merely sees the others'
		while (this.budgets.share(BUDGET) <= 0 && System.nanoTime() < deadline) {
			LockSupport.parkNanos(20_000_000);
		}
		// and once its Redis took that slot back from the peers (a region's first
		// instance on a new Redis does so in its replicators' first round; a change
		// before that is refused): a reservation given back at once changes nothing. A
		// version that cannot read the other's records never gets here, and fails to
		// start
		String probe = "probe-" + this.region + "-" + HistoryLog.micros();
		while (true) {
			try {
				this.budgets.reserve(BUDGET, 1, Duration.ofMinutes(1), probe).ifPresent(this.budgets::release);
				return;
			}
			catch (RegionRecoveringException ex) {
				if (System.nanoTime() > deadline) {
					throw ex;
				}
				LockSupport.parkNanos(20_000_000);
			}
		}
	}

	void step() {
		ThreadLocalRandom random = ThreadLocalRandom.current();
		long amount = 1 + random.nextInt(5);
		if (random.nextBoolean()) {
			long delta = random.nextInt(4) == 0 ? -amount : amount;
			this.history.call("region", "increment", COUNTER, () -> this.counters.increment(COUNTER, delta),
					(total, fields) -> {
						fields.put("outcome", "ok");
						fields.put("amount", delta);
					});
		}
		else {
			// ids shared by every instance of the region: a retry may reach another
			// version
			String id = "rs-" + this.region + "-" + random.nextInt(IDS);
			long fixed = 1 + Math.floorMod(id.hashCode(), 5);
			this.history.call("region", "spend", BUDGET, () -> this.budgets.spend(BUDGET, fixed, id),
					(spend, fields) -> {
						fields.put("outcome", spend.spent() ? "ok" : "refused");
						fields.put("id", id);
						fields.put("amount", fixed);
						fields.put("replayed", spend.replayed());
					});
		}
	}

	/**
	 * Reads the counter and the budget until both hold still for a second (every region's
	 * changes arrived), and writes them.
	 */
	void finish() {
		read("final-counter", COUNTER, () -> this.counters.get(COUNTER));
		read("final-budget", BUDGET, () -> this.budgets.remaining(BUDGET));
	}

	private void read(String op, String key, Callable<Long> read) {
		this.history.call("region", op, key, () -> {
			long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
			Long last = read.call();
			long stillSince = System.nanoTime();
			while (System.nanoTime() - stillSince < Duration.ofSeconds(1).toNanos() && System.nanoTime() < deadline) {
				LockSupport.parkNanos(50_000_000);
				Long now = read.call();
				if (!Objects.equals(now, last)) {
					last = now;
					stillSince = System.nanoTime();
				}
			}
			return last;
		}, (value, fields) -> {
			fields.put("outcome", "ok");
			fields.put("value", value);
		});
	}

}
