package io.github.redkit.region.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.github.redkit.budget.BudgetOverflowException;
import io.github.redkit.budget.Budgets;
import io.github.redkit.budget.Reservation;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.internal.LuaScript;
import io.github.redkit.core.internal.RandomIds;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.core.internal.ReplayWindow;
import io.github.redkit.region.RegionRecoveringException;
import io.github.redkit.region.RegionalBudgets;
import io.github.redkit.region.RegionalCounters;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.util.Assert;

/**
 * {@link RegionalBudgets} on the local Redis: each change is one
 * {@code region_budget_change} script on the budget's regional counters, queued in the
 * same outbox as {@link RegionalCounters} increments. A shared budget is one counter
 * ({@code budget:<name>}: grants in its {@code p} slots, spends in its {@code n} slots);
 * an allotted one is a counter ({@code allotted:<name>}: a region's grants in its
 * {@code p} slot, what it spent or gave away in its {@code n} slot) and one counter per
 * region of what the others gave it.
 */
public class RedisRegionalBudgets implements RegionalBudgets {

	private static final Log logger = LogFactory.getLog(RedisRegionalBudgets.class);

	private static final LuaScript<List> CHANGE = LuaScript.load("region_budget_change", List.class);

	// a reservation's release: sent once a connection frees even when its caller stopped
	// waiting, so that the amount is not held until the reservation's ttl
	private static final LuaScript<List> RELEASE = CHANGE.givingBack();

	private static final LuaScript<List> READ = LuaScript.load("region_budget_read", List.class);

	private static final LuaScript<List> APPLY = LuaScript.load("region_apply", List.class);

	private static final LuaScript<List> BORROWING = LuaScript.load("region_borrow", List.class);

	private final RedisScriptRunner runner;

	private final Map<String, RedisScriptRunner> peers;

	private final RegionShards shards;

	private final String region;

	private final String outboxMaxLength;

	private final String operationTtl;

	private final RegionalBudgetSettings settings;

	private volatile String onceTtl;

	private final Duration timeout;

	private final RedkitMetrics metrics;

	/**
	 * Creates budgets.
	 * @param runner runs scripts on the local Redis
	 * @param peers runs scripts on each peer region's Redis, by region name (borrowing)
	 * @param keyspace builds the keys
	 * @param region this region's name
	 * @param outboxMaxLength the outbox bound (approximate, {@code MAXLEN ~})
	 * @param operationTtl how long an operation id is remembered
	 * @param timeout the longest wait for a Redis
	 */
	public RedisRegionalBudgets(RedisScriptRunner runner, Map<String, RedisScriptRunner> peers, RedisKeyspace keyspace,
			String region, long outboxMaxLength, Duration operationTtl, Duration timeout) {
		this(runner, peers, keyspace, region, new RegionalBudgetSettings(outboxMaxLength, 1, operationTtl, timeout),
				RedkitMetrics.NONE);
	}

	/**
	 * Creates budgets over several shards (see {@code redkit.regions.outbox.shards}) that
	 * count refused changes: a budget's counters, operations and reservations are all in
	 * the shard of its name.
	 * @param runner runs scripts on the local Redis
	 * @param peers runs scripts on each peer region's Redis, by region name (borrowing)
	 * @param keyspace builds the keys
	 * @param region this region's name
	 * @param settings the outbox bound, the shards, the operation TTL and the timeout
	 * @param metrics counts the changes refused while this region recovers
	 */
	public RedisRegionalBudgets(RedisScriptRunner runner, Map<String, RedisScriptRunner> peers, RedisKeyspace keyspace,
			String region, RegionalBudgetSettings settings, RedkitMetrics metrics) {
		Assert.hasText(region, "Region must not be empty");
		Assert.isTrue(!peers.containsKey(region), "A peer must not be named like this region");
		this.runner = runner;
		this.peers = new LinkedHashMap<>(peers);
		this.shards = new RegionShards(keyspace, settings.shards());
		this.region = region;
		this.outboxMaxLength = Long.toString(settings.outboxMaxLength());
		this.operationTtl = Long.toString(settings.operationTtl().toMillis());
		this.timeout = settings.timeout();
		this.metrics = metrics;
		this.settings = settings;
		this.onceTtl = onceTtl(ReplayWindow.DEFAULT_COMMAND_TIMEOUT, settings);
	}

	/**
	 * Sets the connection's command timeout ({@link ReplayWindow#DEFAULT_COMMAND_TIMEOUT}
	 * unless set): Lettuce sends a command again after a reconnect until then, so the
	 * operation id generated for a spend without one is kept for the {@link ReplayWindow}
	 * (never longer than the operation TTL).
	 * @param commandTimeout the connection's command timeout
	 */
	public void setCommandTimeout(Duration commandTimeout) {
		Assert.isTrue(commandTimeout != null && commandTimeout.toMillis() > 0, "commandTimeout must be positive");
		this.onceTtl = onceTtl(commandTimeout, this.settings);
	}

	private static String onceTtl(Duration commandTimeout, RegionalBudgetSettings settings) {
		return Long.toString(ReplayWindow.of(commandTimeout, settings.timeout(), settings.operationTtl()).toMillis());
	}

	@Override
	public boolean create(String name, long amount) {
		// the creation's own id: a retried creation is answered as the first was
		return (Long) change(name, Change.of("create", amount, "create")).get(0) == 1;
	}

	@Override
	public boolean allot(String name, Map<String, Long> shares) {
		Assert.isTrue(shares.keySet().stream().allMatch((r) -> r.equals(this.region) || this.peers.containsKey(r)),
				() -> "Shares must name this region and its peers only (was " + shares.keySet() + ")");
		Assert.isTrue(shares.values().stream().allMatch((share) -> share >= 0), "Shares must not be negative");
		shares.values().forEach(RedisRegionalBudgets::exact);
		long amount = shares.values().stream().mapToLong(Long::longValue).sum();
		List<String> others = new ArrayList<>();
		for (String peer : this.peers.keySet()) {
			others.add(peer);
			others.add(Long.toString(shares.getOrDefault(peer, 0L)));
		}
		return (Long) change(name, Change.naming("allot", amount, "allot", others)).get(0) == 1;
	}

	@Override
	public long remaining(String name) {
		return (Long) read(name).get(1);
	}

	@Override
	public long share(String name) {
		List<?> seen = read(name);
		return (Long) seen.get((Long) seen.get(0) == 2 ? 2 : 1);
	}

	@Override
	public Map<String, Long> shares(String name) {
		return sharesOf(read(name));
	}

	/** The shares in a {@code region_budget_read} reply, empty unless allotted. */
	private Map<String, Long> sharesOf(List<?> seen) {
		Map<String, Long> shares = new LinkedHashMap<>();
		if ((Long) seen.get(0) == 2) {
			List<String> regions = regions();
			for (int i = 0; i < regions.size(); i++) {
				shares.put(regions.get(i), (Long) seen.get(2 + i));
			}
		}
		return shares;
	}

	@Override
	public RegionalSpend spend(String name, long amount, String operationId) {
		Assert.hasText(operationId, "Operation id must not be empty");
		List<?> reply = change(name, Change.of("spend", amount, "spend " + operationId));
		return new RegionalSpend((Long) reply.get(0) == 1, (Long) reply.get(1), (Long) reply.get(2) == 1);
	}

	@Override
	public long refund(String name, long amount, String operationId) {
		Assert.hasText(operationId, "Operation id must not be empty");
		return (Long) change(name, Change.of("refund", amount, "refund " + operationId)).get(1);
	}

	@Override
	public Optional<Reservation> reserve(String name, long amount, Duration ttl, String operationId) {
		Assert.hasText(operationId, "Operation id must not be empty");
		Assert.isTrue(ttl.toMillis() > 0, "Reservation TTL must be at least a millisecond");
		List<?> reply = change(name,
				new Change("reserve", amount, "reserve " + operationId, operationId, ttl, List.of()));
		return ((Long) reply.get(0) == 1) ? Optional.of(new Reservation(name, operationId, amount)) : Optional.empty();
	}

	@Override
	public RegionalSpend commit(Reservation reservation, long actualAmount) {
		Assert.isTrue(actualAmount >= 0 && actualAmount <= reservation.amount(),
				() -> "Actual amount must be between 0 and " + reservation.amount() + " (was " + actualAmount + ")");
		List<?> reply = change(reservation.budgetId(), new Change("commit", actualAmount, "commit " + reservation.id(),
				reservation.id(), Duration.ZERO, List.of()));
		return new RegionalSpend((Long) reply.get(0) == 1, (Long) reply.get(1), (Long) reply.get(2) == 1);
	}

	@Override
	public void release(Reservation reservation) {
		change(reservation.budgetId(), new Change("release", reservation.amount(), "release " + reservation.id(),
				reservation.id(), Duration.ZERO, List.of()));
	}

	@Override
	public long give(String name, String region, long amount, String operationId) {
		Assert.isTrue(this.peers.containsKey(region), () -> "Region '" + region + "' is not a peer");
		Assert.hasText(operationId, "Operation id must not be empty");
		return (Long) change(name, Change.naming("give", amount, "give " + region + " " + operationId, List.of(region)))
			.get(3);
	}

	@Override
	public long borrow(String name, long amount, String operationId) {
		Assert.isTrue(amount > 0, () -> "Amount must be positive (was " + amount + ")");
		exact(amount);
		Assert.hasText(operationId, "Operation id must not be empty");
		List<?> seen = read(name);
		if ((Long) seen.get(0) == 1 || this.peers.isEmpty()) {
			// a shared budget: every region spends from all of it already
			return 0;
		}
		Map<String, Long> shares = sharesOf(seen);
		// the largest share first; all of them when this region does not see the budget
		// yet. A retry keeps the order of the first attempt (the shares changed since).
		List<String> order = new ArrayList<>(this.peers.keySet());
		order.sort(Comparator.comparing((String donor) -> shares.getOrDefault(donor, 0L)).reversed());
		Map<String, String> record = borrowing(name, operationId, "", "", order);
		long borrowed = 0;
		for (int i = 1; borrowed < amount; i++) {
			String donor = record.get("ask:" + i);
			if (donor == null) {
				break;
			}
			String gave = record.get("gave:" + donor);
			if (gave != null) {
				borrowed += Long.parseLong(gave);
				continue;
			}
			RedisScriptRunner peer = this.peers.get(donor);
			if (peer == null) {
				// no longer a peer since the first attempt
				continue;
			}
			try {
				long given = borrowFrom(donor, peer, name, amount - borrowed, operationId);
				borrowed += given;
				borrowing(name, operationId, donor, Long.toString(given), List.of());
			}
			catch (RuntimeException ex) {
				// a region out of reach (or recovering) gives nothing; the next one may,
				// and a retry asks it again. If the ask reached it after all, what it
				// gave arrives here by replication.
				logger.debug("Could not borrow from region '" + donor + "'", ex);
			}
		}
		return borrowed;
	}

	/**
	 * Reads and updates this region's record of a borrow ({@code region_borrow}).
	 * @param donor a region that answered, else empty
	 * @param gave what it gave
	 * @param order the regions to ask, kept unless the record has an order already
	 * @return the record
	 */
	private Map<String, String> borrowing(String name, String operationId, String donor, String gave,
			List<String> order) {
		RegionKeys shard = this.shards.of(name);
		List<String> args = new ArrayList<>(List.of(this.operationTtl, donor, gave));
		args.addAll(order);
		List<?> reply = this.runner.execute(BORROWING, this.timeout,
				List.of(shard.borrowing(shared(name), operationId), shard.incarnation(this.region)),
				args.toArray(new String[0]));
		if (reply.size() == 1) {
			throw recovering(name);
		}
		Map<String, String> record = new LinkedHashMap<>();
		for (int i = 0; i + 1 < reply.size(); i += 2) {
			record.put(reply.get(i).toString(), reply.get(i + 1).toString());
		}
		return record;
	}

	private RegionRecoveringException recovering(String name) {
		this.metrics.increment(RegionMeters.BUDGETS_REFUSED, "reason", "recovering");
		return new RegionRecoveringException(this.region, name);
	}

	/**
	 * Runs a {@code give} on the donor's Redis, as the donor would, then applies the
	 * donor's changed slots here at once: the same state its replicator ships later,
	 * which the max-merge keeps once.
	 */
	private long borrowFrom(String donor, RedisScriptRunner runner, String name, long amount, String operationId) {
		List<?> reply = change(runner, donor, name,
				Change.naming("lend", amount, "borrow " + this.region + " " + operationId, List.of(this.region)), true);
		if ((Long) reply.get(0) == -2) {
			throw new RegionRecoveringException(donor, name);
		}
		long given = (Long) reply.get(3);
		if (given > 0 && reply.size() > 4) {
			RegionKeys shard = this.shards.of(name);
			this.runner.execute(APPLY, this.timeout,
					List.of(shard.received(), shard.counter(allotted(name)),
							shard.counter(incoming(name, this.region))),
					donor, "0", (String) reply.get(4), (String) reply.get(5), "0", "0", (String) reply.get(6),
					(String) reply.get(7), "0");
		}
		return given;
	}

	private List<?> read(String name) {
		Assert.hasText(name, "Budget name must not be empty");
		RegionKeys shard = this.shards.of(name);
		List<String> keys = new ArrayList<>(List.of(shard.counter(shared(name)), shard.counter(allotted(name))));
		List<String> regions = regions();
		regions.forEach((each) -> keys.add(shard.counter(incoming(name, each))));
		return this.runner.execute(READ, this.timeout, keys, regions.toArray(new String[0]));
	}

	/** This region, then its peers. */
	private List<String> regions() {
		List<String> regions = new ArrayList<>();
		regions.add(this.region);
		regions.addAll(this.peers.keySet());
		return regions;
	}

	/**
	 * Runs one change on this region's Redis: refused while this region does not hold its
	 * own slot, unless it has no peer to take it back from.
	 */
	@Override
	public RegionalSpend spend(String name, long amount) {
		// an id per call, kept for the replay window only: Lettuce may send the spend
		// again after a reconnect (issue 43); a replay of it is this call's own outcome
		List<?> reply = change(name, Change.of("spend", amount, RedisRegionalCounters.ONCE + RandomIds.next()));
		return new RegionalSpend((Long) reply.get(0) == 1, (Long) reply.get(1), false);
	}

	private List<?> change(String name, Change change) {
		List<?> reply = change(this.runner, this.region, name, change, !this.peers.isEmpty());
		long outcome = (Long) reply.get(0);
		if (outcome == -2) {
			throw recovering(name);
		}
		if (outcome == -3) {
			throw new BudgetOverflowException(name, change.amount(), (Long) reply.get(1));
		}
		return reply;
	}

	/**
	 * Runs one change on a region's Redis as that region.
	 * @param recovered whether the change needs the region to hold its own slot
	 */
	private List<?> change(RedisScriptRunner target, String region, String name, Change change, boolean recovered) {
		Assert.hasText(name, "Budget name must not be empty");
		String shared = shared(name);
		RegionKeys shard = this.shards.of(name);
		List<String> keys = new ArrayList<>(
				List.of(shard.counter(shared), shard.counter(allotted(name)), shard.counter(incoming(name, region)),
						shard.sequence(), shard.outbox(), shard.operation(shared, change.operationKey()),
						shard.reservations(shared), shard.reservationDeadlines(shared), shard.incarnation(region)));
		List<String> args = new ArrayList<>(
				List.of(region, change.operation(), Long.toString(change.amount()), this.outboxMaxLength,
						change.operationKey().startsWith(RedisRegionalCounters.ONCE) ? this.onceTtl : this.operationTtl,
						shared, allotted(name), incoming(name, region), change.reservation(),
						Long.toString(change.reservationTtl().toMillis()), recovered ? "1" : "0"));
		boolean withShares = change.operation().equals("allot");
		List<String> others = change.others();
		for (int i = 0; i < others.size(); i += withShares ? 2 : 1) {
			keys.add(shard.counter(incoming(name, others.get(i))));
			args.add(incoming(name, others.get(i)));
			if (withShares) {
				args.add(others.get(i + 1));
			}
		}
		LuaScript<List> script = change.operation().equals("release") ? RELEASE : CHANGE;
		return target.execute(script, this.timeout, keys, args.toArray(new String[0]));
	}

	/** Refuses an amount that Lua's doubles would round, as {@link Budgets} does. */
	private static void exact(long amount) {
		Assert.isTrue(amount <= Budgets.MAX_AMOUNT, () -> "Amount " + amount + " exceeds " + Budgets.MAX_AMOUNT);
	}

	/**
	 * Whether a regional counter's name is one that budgets use: {@link RegionalCounters}
	 * refuse it, so that a counter never changes a budget.
	 */
	static boolean isBudgetCounter(String counter) {
		return counter.startsWith("budget:") || counter.startsWith("allotted:") || counter.startsWith("allotted-to:");
	}

	/** The regional counter of a shared budget, apart from counters by its prefix. */
	static String shared(String name) {
		return "budget:" + name;
	}

	/** The regional counter of an allotted budget's grants, spends and gifts. */
	static String allotted(String name) {
		return "allotted:" + name;
	}

	/**
	 * The regional counter of what the other regions gave one region of an allotted
	 * budget; the region's length first, so that no region and name pair reads like
	 * another.
	 */
	static String incoming(String name, String region) {
		return "allotted-to:" + region.length() + ":" + region + ":" + name;
	}

	/**
	 * One {@code region_budget_change} call.
	 *
	 * @param operation the script's operation
	 * @param amount the amount
	 * @param operationKey remembers the answer for a retry
	 * @param reservation the reservation's id (reserve, commit, release), else empty
	 * @param reservationTtl the reservation's lifetime (reserve)
	 * @param others the other regions the change names: every peer and its share (allot),
	 * the receiver (give)
	 */
	private record Change(String operation, long amount, String operationKey, String reservation,
			Duration reservationTtl, List<String> others) {

		Change {
			Assert.isTrue(amount > 0 || (amount == 0 && operation.equals("commit")),
					() -> "Amount must be positive (was " + amount + ")");
			exact(amount);
		}

		static Change of(String operation, long amount, String operationKey) {
			return new Change(operation, amount, operationKey, "", Duration.ZERO, List.of());
		}

		static Change naming(String operation, long amount, String operationKey, List<String> others) {
			return new Change(operation, amount, operationKey, "", Duration.ZERO, others);
		}

	}

}
