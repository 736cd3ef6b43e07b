package io.github.redkit.region.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.internal.DeleteIfEqual;
import io.github.redkit.core.internal.LuaScript;
import io.github.redkit.core.internal.RandomIds;
import io.github.redkit.core.internal.RedisScriptRunner;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * Ships this region's outbox to one peer region: reads a batch after the position last
 * shipped to that peer (kept on the local Redis), applies it on the peer's Redis with one
 * {@code region_apply} script, then moves the position forward. A crash between the two
 * ships the batch again, which the peer ignores: every entry carries the origin's
 * absolute slot, merged with {@code max}.
 * <p>
 * Runs on one daemon thread from {@link #start()} to {@link #stop()}.
 */
public class RegionReplicator {

	private static final Log logger = LogFactory.getLog(RegionReplicator.class);

	private static final LuaScript<List> READ = LuaScript.load("region_outbox_read", List.class);

	static final LuaScript<List> APPLY = LuaScript.load("region_apply", List.class);

	private static final LuaScript<Long> ADVANCE = LuaScript.load("region_advance", Long.class);

	private static final LuaScript<Long> LEASE = LuaScript.load("region_shipper_lease", Long.class);

	// the re-seed flag's and the incarnation's compare-and-delete (RegionalScriptsTests
	// counts its commands; DELIFEQ where the server has it, Valkey 9)
	static final LuaScript<Long> COMPARE_DELETE = DeleteIfEqual.script("region_compare_delete");

	private static final int HEADER = 6;

	private static final int FIELDS = 6;

	private final String peer;

	private final String region;

	private final RedisScriptRunner local;

	private final RedisScriptRunner remote;

	private final RegionKeys keys;

	// peer and shard, on every meter
	private final String[] tags;

	private final int batchSize;

	private final Duration interval;

	private final Duration timeout;

	private final RedkitMetrics metrics;

	private final RegionReseeder reseeder;

	private final RegionShipping shipping;

	private Runnable beforeAdvance = () -> {
	};

	private Runnable beforeReseed = () -> {
	};

	private volatile @Nullable Thread thread;

	private volatile long lagEntries;

	private volatile long lagMillis;

	private volatile long outboxDepth;

	private volatile boolean reseedRequired;

	private final RegionRecovery recovery;

	private volatile @Nullable Throwable lastError;

	private volatile long lastErrorNanos;

	private volatile boolean roundDone;

	private volatile boolean lastRoundFailed;

	private volatile boolean standingBy;

	// this instance, among the instances of its region that could ship to the peer
	private final String instance = RandomIds.next();

	/**
	 * Creates a replicator that recovers this region's slots from the given peers;
	 * nothing runs before {@link #start()}.
	 * @param shipping the shard it ships and how
	 * @param peer the peer region's name
	 * @param remote runs scripts on the peer's Redis
	 * @param recovery the recovery of the shard, shared by its replicators to every peer
	 */
	RegionReplicator(RegionShipping shipping, String peer, RedisScriptRunner remote, RegionRecovery recovery) {
		Assert.hasText(peer, "Peer must not be empty");
		Assert.isTrue(!shipping.region().equals(peer), "A region cannot be its own peer");
		this.shipping = shipping;
		this.region = shipping.region();
		this.peer = peer;
		this.local = shipping.local();
		this.remote = remote;
		this.keys = shipping.keys();
		this.tags = new String[] { "peer", peer, "shard", Integer.toString(shipping.shard()) };
		this.batchSize = shipping.batchSize();
		this.interval = shipping.interval();
		this.timeout = shipping.timeout();
		this.metrics = shipping.metrics();
		this.reseeder = new RegionReseeder(this.region, this.local, remote, this.keys, this.batchSize, this.timeout);
		this.recovery = recovery;
		this.metrics.gauge(RegionMeters.LAG_ENTRIES, this, (r) -> r.lagEntries, this.tags);
		this.metrics.gauge(RegionMeters.LAG_SECONDS, this, (r) -> r.lagMillis / 1000.0, this.tags);
		this.metrics.gauge(RegionMeters.RESEED, this, (r) -> r.reseedRequired ? 1 : 0, this.tags);
		this.metrics.gauge(RegionMeters.LAST_ERROR, this, RegionReplicator::lastErrorAge, this.tags);
	}

	/**
	 * The replicators of one shard, one per peer: a region that lost the shard's data
	 * takes its slots back from every peer at once, through one recovery they share.
	 * @param shipping the shard and how it is shipped
	 * @param peers runs scripts on each peer's Redis, by peer region name
	 * @return one replicator per peer, not started
	 */
	public static List<RegionReplicator> toPeers(RegionShipping shipping, Map<String, RedisScriptRunner> peers) {
		RegionRecovery recovery = new RegionRecovery(shipping, peers);
		List<RegionReplicator> replicators = new ArrayList<>();
		peers.forEach((peer, remote) -> replicators.add(new RegionReplicator(shipping, peer, remote, recovery)));
		return replicators;
	}

	/**
	 * The replicator to one peer, recovering from that peer alone.
	 * @param shipping the shard and how it is shipped
	 * @param peer the peer region's name
	 * @param remote runs scripts on the peer's Redis
	 * @return the replicator, not started
	 */
	public static RegionReplicator toPeer(RegionShipping shipping, String peer, RedisScriptRunner remote) {
		return toPeers(shipping, Map.of(peer, remote)).get(0);
	}

	/**
	 * The peer region this replicator ships to.
	 * @return the peer's name
	 */
	public String peer() {
		return this.peer;
	}

	/** Runs scripts on the peer's Redis. */
	RedisScriptRunner peerRunner() {
		return this.remote;
	}

	RegionShipping shipping() {
		return this.shipping;
	}

	public String region() {
		return this.region;
	}

	RedisScriptRunner localRunner() {
		return this.local;
	}

	RegionKeys keys() {
		return this.keys;
	}

	int batchSize() {
		return this.batchSize;
	}

	Duration timeout() {
		return this.timeout;
	}

	RedkitMetrics metrics() {
		return this.metrics;
	}

	/**
	 * Starts shipping on a daemon thread.
	 */
	public synchronized void start() {
		if (this.thread != null) {
			return;
		}
		Thread started = new Thread(this::run,
				"redkit-region-" + this.peer + ((this.keys.shard() > 0) ? "-" + this.keys.shard() : ""));
		started.setDaemon(true);
		this.thread = started;
		started.start();
	}

	/**
	 * Stops shipping and waits for the current round to end (a batch applied on the peer
	 * but not yet recorded as shipped is shipped again by the next replicator).
	 */
	public void stop() {
		Thread running;
		synchronized (this) {
			running = this.thread;
			this.thread = null;
		}
		if (running != null) {
			running.interrupt();
			try {
				running.join(this.timeout.toMillis() * 2 + 1000);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			giveUpLease();
		}
	}

	/**
	 * Whether the replicator's thread is running.
	 * @return {@code true} between {@link #start()} and {@link #stop()}
	 */
	public boolean isRunning() {
		return this.thread != null;
	}

	/**
	 * Entries written to the outbox and not yet shipped to the peer, as of the last
	 * round.
	 * @return the lag in entries
	 */
	public long lagEntries() {
		return this.lagEntries;
	}

	/**
	 * Age of the oldest entry not yet shipped, as of the last round (Redis time).
	 * @return the lag
	 */
	public Duration lag() {
		return Duration.ofMillis(this.lagMillis);
	}

	/**
	 * Whether the peer must be re-seeded with this region's slots, as of the last round:
	 * the outbox bound trimmed entries before they reached it, it restarted empty, or
	 * this region recovered its slots. The flag lives on this region's Redis until a
	 * re-seed finishes, so a failed re-seed or a stopped process re-seeds again.
	 * @return {@code true} from a gap until the re-seed that follows it
	 */
	public boolean isReseedRequired() {
		return this.reseedRequired;
	}

	/**
	 * The failure of the last failed round, if any.
	 * @return the failure or {@code null}
	 */
	public @Nullable Throwable lastError() {
		return this.lastError;
	}

	/**
	 * Where replication to the peer stands, as of the last round.
	 * @return {@code recovering} while this region's Redis lost its data (or went back in
	 * time) and has not yet taken its slots back from every peer, {@code failing} when
	 * the last round failed (the peer or this region's Redis did not answer),
	 * {@code starting} before the first round, {@code in-step} when nothing is left to
	 * ship, {@code lagging} otherwise
	 */
	public String state() {
		if (this.recovery.isRecovering()) {
			return "recovering";
		}
		if (this.lastRoundFailed) {
			return "failing";
		}
		if (this.standingBy) {
			return "standby";
		}
		if (!this.roundDone) {
			return "starting";
		}
		return (this.lagEntries == 0) ? "in-step" : "lagging";
	}

	/**
	 * Whether another instance of this region holds the lease of shipping to the peer, as
	 * of the last round.
	 * @return {@code true} while this one stands by
	 */
	public boolean isStandingBy() {
		return this.standingBy;
	}

	/**
	 * Time since the last failed round, if any.
	 * @return the time since, or {@code null} when no round failed
	 */
	public @Nullable Duration sinceLastError() {
		return (this.lastError != null) ? Duration.ofNanos(System.nanoTime() - this.lastErrorNanos) : null;
	}

	long outboxDepth() {
		return this.outboxDepth;
	}

	public void setBeforeAdvance(Runnable beforeAdvance) {
		this.beforeAdvance = beforeAdvance;
	}

	public void setBeforeReseed(Runnable beforeReseed) {
		this.beforeReseed = beforeReseed;
	}

	public RegionRecovery recovery() {
		return this.recovery;
	}

	/**
	 * How far the last recovery of this region's slots got (see {@link #state()}).
	 * @return the peers read completely ({@code peersRead}), how many there are
	 * ({@code peers}), the counters read from them ({@code countersRead})
	 */
	public Map<String, Object> recoveryProgress() {
		return this.recovery.progress();
	}

	private void run() {
		long pause = this.interval.toMillis();
		while (this.thread == Thread.currentThread()) {
			try {
				int shipped = ship(leaseMillis());
				this.standingBy = shipped < 0;
				this.lastRoundFailed = false;
				this.roundDone = true;
				pause = this.interval.toMillis();
				if (shipped < this.batchSize) {
					Thread.sleep(pause);
				}
			}
			catch (InterruptedException ex) {
				return;
			}
			catch (RuntimeException ex) {
				failed(ex);
				// a peer that is down is retried, more slowly, up to once every 5 seconds
				pause = Math.min(Math.max(pause * 2, 1), 5000);
				try {
					Thread.sleep(pause);
				}
				catch (InterruptedException interrupted) {
					return;
				}
			}
		}
	}

	/** A lease of a few rounds: a shipper that dies is replaced within it. */
	private String leaseMillis() {
		return Long.toString(Math.max(this.interval.toMillis() * 10, this.timeout.toMillis() * 2));
	}

	private void giveUpLease() {
		// so that another instance of this region takes over at its next round, not when
		// the lease runs out
		try {
			this.local.execute(LEASE, this.timeout, List.of(this.keys.shipper(this.peer)), this.instance);
		}
		catch (RuntimeException ex) {
			logger.debug("Could not give up the lease of shipping to region '" + this.peer + "'", ex);
		}
	}

	/**
	 * Ships one batch, whoever holds the lease: the next entries after the shipped
	 * position.
	 * @return the number of entries shipped
	 */
	public int shipOnce() {
		return ship("");
	}

	/**
	 * Ships one batch when this instance holds the lease, in the same local call that
	 * renews it.
	 * @param leaseMillis the lease, empty to ship without it
	 * @return the number of entries shipped, {@code -1} when another instance holds the
	 * lease
	 */
	private int ship(String leaseMillis) {
		List<?> reply = this.local.execute(READ, this.timeout,
				List.of(this.keys.outbox(), this.keys.sequence(), this.keys.shipped(this.peer),
						this.keys.shipper(this.peer), this.keys.incarnation(this.region), this.keys.reseed(this.peer)),
				Integer.toString(this.batchSize), this.instance, leaseMillis);
		if (reply.size() == 1 && number(reply.get(0)) == -2) {
			// new, or it lost its data: this region's slots first, from the peers
			this.recovery.recover();
			return ship(leaseMillis);
		}
		this.recovery.notNeeded();
		if (reply.size() == 1) {
			return -1;
		}
		long shippedSeq = number(reply.get(0));
		long lastSeq = number(reply.get(1));
		long now = number(reply.get(2));
		// read before the peer is reached: a peer that stays away still has a true lag
		this.outboxDepth = number(reply.get(3));
		this.lagEntries = lastSeq - shippedSeq;
		String reseedFlag = (String) reply.get(4);
		String incarnation = (String) reply.get(5);
		this.reseedRequired = !reseedFlag.isEmpty();
		if (this.reseedRequired) {
			reseed(reseedFlag);
		}
		int count = (reply.size() - HEADER) / FIELDS;
		if (count == 0) {
			this.lagMillis = 0;
			return 0;
		}
		long firstSeq = number(reply.get(HEADER + 1));
		boolean gap = firstSeq > shippedSeq + 1;
		if (gap) {
			trimmed(firstSeq - shippedSeq - 1);
			// flagged before the position moves past the gap: a failure or a crash
			// re-seeds again, harmlessly
			reseed(flagReseed());
		}
		String firstId = (String) reply.get(HEADER);
		this.lagMillis = Math.max(0, now - Long.parseLong(firstId.substring(0, firstId.indexOf('-'))));
		List<String> applyKeys = new ArrayList<>(count + 1);
		List<String> args = new ArrayList<>(count * 4 + 1);
		applyKeys.add(this.keys.received());
		args.add(this.region);
		for (int i = 0; i < count; i++) {
			int at = HEADER + i * FIELDS;
			applyKeys.add(this.keys.counter((String) reply.get(at + 2)));
			// the entry's stream id beside its sequence: a peer that received a sequence
			// under an earlier id knows that this Redis went back in time
			args.add(reply.get(at + 1) + "|" + reply.get(at));
			args.add((String) reply.get(at + 3));
			args.add((String) reply.get(at + 4));
			args.add((String) reply.get(at + 5));
		}
		List<?> applied = this.remote.execute(APPLY, this.timeout, applyKeys, args.toArray(new String[0]));
		if (number(applied.get(0)) < 0) {
			wentBackInTime(incarnation, applied);
			return 0;
		}
		if (number(applied.get(2)) == 0 && firstSeq > 1 && !gap) {
			// the peer acknowledged earlier entries once, and has no trace of them now
			logger.warn("Region '" + this.peer + "' has no record of the entries shipped to it before"
					+ " (restarted empty?): re-seeding it");
			reseed(flagReseed());
		}
		this.metrics.increment(RegionMeters.SHIPPED, this.tags);
		this.beforeAdvance.run();
		int last = HEADER + (count - 1) * FIELDS;
		long lastShipped = number(reply.get(last + 1));
		this.local.execute(ADVANCE, this.timeout, List.of(this.keys.shipped(this.peer)),
				reply.get(last) + "|" + lastShipped);
		this.lagEntries = lastSeq - lastShipped;
		if (lastShipped >= lastSeq) {
			this.lagMillis = 0;
		}
		logShipped(count, applied);
		return count;
	}

	/**
	 * This region's Redis holds older data than the peer received from it: forgets its
	 * incarnation (unless a recovery replaced it meanwhile), so that the next round takes
	 * the slots back from the peers as after a loss.
	 */
	private void wentBackInTime(String incarnation, List<?> applied) {
		logger.warn("Region '" + this.peer + "' received sequence " + applied.get(2) + " (outbox id " + applied.get(3)
				+ ") from this region, beyond what this Redis holds: it was restored from an older snapshot or failed"
				+ " over to a replica that was behind; taking this region's slots back from the peers");
		this.local.execute(COMPARE_DELETE, this.timeout, List.of(this.keys.incarnation(this.region)), incarnation);
	}

	/** Flags on this region's Redis that the peer must be re-seeded. */
	private String flagReseed() {
		String token = RandomIds.next();
		this.local.template().opsForValue().set(this.keys.reseed(this.peer), token);
		this.reseedRequired = true;
		return token;
	}

	/**
	 * Re-seeds the peer, then clears the flag read, unless it was set again meanwhile.
	 */
	private void reseed(String flag) {
		this.beforeReseed.run();
		long reseeded = this.reseeder.reseed();
		Long cleared = this.local.execute(COMPARE_DELETE, this.timeout, List.of(this.keys.reseed(this.peer)), flag);
		this.reseedRequired = cleared == null || cleared == 0;
		this.metrics.increment(RegionMeters.RESEEDS, this.tags);
		logger.warn("Re-seeded region '" + this.peer + "' with this region's slot of " + reseeded + " counters");
	}

	private void logShipped(int count, List<?> applied) {
		if (logger.isTraceEnabled()) {
			logger.trace("Shipped " + count + " entries to region '" + this.peer + "': " + applied.get(0)
					+ " changed a counter, " + applied.get(1) + " were known");
		}
	}

	private void trimmed(long missed) {
		this.metrics.increment(RegionMeters.TRIMMED, this.tags);
		logger.warn("The outbox bound trimmed " + missed + " entries before they were shipped to region '" + this.peer
				+ "': counters changed since converge again, the others must be re-seeded on that region"
				+ " (raise redkit.regions.outbox.max-length if a peer can be away this long)");
	}

	private void failed(RuntimeException ex) {
		this.lastRoundFailed = true;
		this.roundDone = true;
		this.lastError = ex;
		this.lastErrorNanos = System.nanoTime();
		this.metrics.increment(RegionMeters.ERRORS, this.tags[0], this.tags[1], this.tags[2], this.tags[3], "exception",
				ex.getClass().getSimpleName());
		logger.debug("Replication to region '" + this.peer + "' failed", ex);
	}

	private static double lastErrorAge(RegionReplicator replicator) {
		Duration since = replicator.sinceLastError();
		return (since != null) ? since.toNanos() / 1_000_000_000.0 : -1;
	}

	static long number(Object value) {
		return (value instanceof Long number) ? number : Long.parseLong(value.toString());
	}

}
