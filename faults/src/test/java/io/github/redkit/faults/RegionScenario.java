package io.github.redkit.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;

import io.github.redkit.region.RegionRecoveringException;
import io.github.redkit.region.RegionalBudgets;
import io.github.redkit.region.RegionalBudgets.RegionalSpend;
import io.github.redkit.region.RegionalCounters;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * Three regions, each on its own Redis, four instances (two in {@code eu}), each reaching
 * its own region's Redis and every peer's through links of its own, so that a partition
 * between regions is a partitioned link. Clients increment regional counters, spend,
 * refund, give and borrow on an allotted budget, and spend and refund on a shared one,
 * every budget change with an operation id retried after an unknown outcome. Once every
 * fault healed, every instance's views are read until they agree; {@link RegionChecker}
 * judges the history.
 */
class RegionScenario implements Scenario {

	static final List<String> REGIONS = List.of("eu", "us", "ap");

	static final List<String> COUNTERS = List.of("c0", "c1");

	/** The allotted budget and each region's share. */
	static final String ALLOTTED = "allotted-budget";

	static final long SHARE = 100;

	/** The shared budget and its amount. */
	static final String SHARED = "shared-budget";

	static final long SHARED_AMOUNT = 150;

	/**
	 * The one region that borrows: the others lend to it, so that what it holds can be
	 * told exactly from its own changes (a borrow made twice shows).
	 */
	static final int BORROWER = 2;

	/** How long a regional call may take before the product gives up on it. */
	static final Duration REGION_TIMEOUT = Duration.ofMillis(500);

	private static final int ATTEMPTS = 3;

	private static final Duration SETTLE = Duration.ofSeconds(40);

	private final Set<Breakage> breakages;

	private final int spendsUpTo;

	RegionScenario() {
		this(EnumSet.noneOf(Breakage.class));
	}

	RegionScenario(Set<Breakage> breakages) {
		this.breakages = EnumSet.copyOf(breakages.isEmpty() ? EnumSet.of(Breakage.NONE) : breakages);
		// a transfer broken on purpose shows only while shares hold something to move
		this.spendsUpTo = (this.breakages.contains(Breakage.GIVE_TWICE)
				|| this.breakages.contains(Breakage.BORROW_TWICE)) ? 36 : 55;
	}

	@Override
	public String capability() {
		return "several regions";
	}

	@Override
	public String guarantee() {
		return RegionChecker.GUARANTEE;
	}

	@Override
	public Set<Fault> faults() {
		return EnumSet.allOf(Fault.class);
	}

	@Override
	public int nodes() {
		return REGIONS.size();
	}

	@Override
	public int instances() {
		return 4;
	}

	static int regionOf(int instance) {
		return instance % REGIONS.size();
	}

	static int instanceOf(int process, int clientsPerInstance) {
		return process / clientsPerInstance;
	}

	@Override
	public List<String> instanceProperties(int instance, Rig rig) {
		int region = regionOf(instance);
		List<String> properties = new ArrayList<>(List.of("spring.data.redis.host=127.0.0.1",
				"spring.data.redis.port=" + rig.link(region), "redkit.regions.local=" + REGIONS.get(region)));
		for (int peer = 0; peer < REGIONS.size(); peer++) {
			if (peer != region) {
				properties
					.add("redkit.regions.peers." + REGIONS.get(peer) + ".url=redis://127.0.0.1:" + rig.link(peer));
			}
		}
		return properties;
	}

	@Override
	public List<String> properties() {
		return List.of("redkit.regions.replication.interval=20ms",
				"redkit.regions.timeout=" + REGION_TIMEOUT.toMillis() + "ms", "redkit.regions.health.timeout=300ms",
				"faults.broken=" + this.breakages.stream().map(Breakage::name).collect(Collectors.joining(",")));
	}

	@Override
	public List<Class<?>> sources() {
		return List.of(BrokenRegions.class);
	}

	@Override
	public void prepare(List<ConfigurableApplicationContext> instances) {
		RegionalBudgets eu = instances.get(0).getBean(RegionalBudgets.class);
		Map<String, Long> shares = new LinkedHashMap<>();
		REGIONS.forEach((region) -> shares.put(region, SHARE));
		// a new region changes no budget until its replicators' first round
		untilDone(() -> eu.allot(ALLOTTED, shares));
		untilDone(() -> eu.create(SHARED, SHARED_AMOUNT));
		long deadline = System.nanoTime() + SETTLE.toNanos();
		while (!instances.stream().allMatch((instance) -> seesBothBudgets(instance.getBean(RegionalBudgets.class)))) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("the budgets did not reach every region");
			}
			LockSupport.parkNanos(20_000_000);
		}
	}

	private static boolean seesBothBudgets(RegionalBudgets budgets) {
		return budgets.remaining(ALLOTTED) == SHARE * REGIONS.size() && budgets.remaining(SHARED) == SHARED_AMOUNT
				&& budgets.share(ALLOTTED) == SHARE;
	}

	private static void untilDone(Callable<?> change) {
		long deadline = System.nanoTime() + SETTLE.toNanos();
		while (true) {
			try {
				change.call();
				return;
			}
			catch (RegionRecoveringException ex) {
				if (System.nanoTime() > deadline) {
					throw ex;
				}
				LockSupport.parkNanos(20_000_000);
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
		}
	}

	@Override
	public void operate(Client client) throws Exception {
		int region = regionOf(instanceOf(client.process(), clientsPerInstance()));
		int choice = client.random().nextInt(100);
		long amount = 1 + client.random().nextInt(5);
		String id = "p" + client.process() + "-" + client.random().nextInt(Integer.MAX_VALUE);
		if (choice < 30) {
			String counter = COUNTERS.get(client.random().nextInt(COUNTERS.size()));
			long delta = (client.random().nextInt(6) == 0) ? -amount : amount;
			client.history()
				.record(client.process(), "increment", counter, delta,
						() -> client.bean(RegionalCounters.class).increment(counter, delta), (total) -> Outcome.OK);
		}
		else if (choice < this.spendsUpTo) {
			retried(client, "spend", ALLOTTED, id, amount, () -> spend(client, ALLOTTED, amount, id));
		}
		else if (choice < 63) {
			retried(client, "refund", ALLOTTED, id, amount, () -> refund(client, ALLOTTED, amount, id));
		}
		else if (choice < 69 || (choice < 75 && region != BORROWER)) {
			String receiver = REGIONS.get((region + 1 + client.random().nextInt(REGIONS.size() - 1)) % REGIONS.size());
			long asked = amount * 2;
			retried(client, "give:" + receiver, ALLOTTED, id, asked,
					() -> moved(() -> client.bean(RegionalBudgets.class).give(ALLOTTED, receiver, asked, id)));
		}
		else if (choice < 75) {
			long asked = amount * 2;
			retried(client, "borrow", ALLOTTED, id, asked,
					() -> moved(() -> client.bean(RegionalBudgets.class).borrow(ALLOTTED, asked, id)));
		}
		else if (choice < 92) {
			retried(client, "spend", SHARED, id, amount, () -> spend(client, SHARED, amount, id));
		}
		else if (choice < 95) {
			retried(client, "refund", SHARED, id, amount, () -> refund(client, SHARED, amount, id));
		}
		else {
			client.history()
				.record(client.process(), "share", ALLOTTED, 0,
						() -> client.bean(RegionalBudgets.class).share(ALLOTTED), (share) -> Outcome.OK);
		}
		LockSupport.parkNanos(client.random().nextInt(1_000_000));
	}

	/**
	 * Runs a budget change until its outcome is known, with the same operation id each
	 * time, as a caller must after a timeout.
	 */
	private static void retried(Client client, String action, String budget, String id, long amount,
			Callable<Answer> change) {
		for (int attempt = 0; attempt < ATTEMPTS && !Thread.currentThread().isInterrupted(); attempt++) {
			Answer answer = client.history()
				.record(client.process(), action, budget + "#" + id, amount, change, Answer::outcome);
			if (answer != null) {
				return;
			}
		}
	}

	private static Answer spend(Client client, String budget, long amount, String id) {
		try {
			RegionalSpend spend = client.bean(RegionalBudgets.class).spend(budget, amount, id);
			return new Answer(spend.spent(), spend.spent() ? amount : 0, spend.remaining(), spend.replayed(), false);
		}
		catch (RegionRecoveringException ex) {
			return Answer.RECOVERING;
		}
	}

	private static Answer refund(Client client, String budget, long amount, String id) {
		try {
			long remaining = client.bean(RegionalBudgets.class).refund(budget, amount, id);
			return new Answer(true, amount, remaining, false, false);
		}
		catch (RegionRecoveringException ex) {
			return Answer.RECOVERING;
		}
	}

	private static Answer moved(Callable<Long> transfer) throws Exception {
		try {
			return new Answer(true, transfer.call(), 0, false, false);
		}
		catch (RegionRecoveringException ex) {
			return Answer.RECOVERING;
		}
	}

	/**
	 * Reads every instance's views until they agree twice in a row: the replicators have
	 * drained, and a region that lost its data has read every peer.
	 */
	@Override
	public void settle(List<ConfigurableApplicationContext> instances, History history) {
		long started = System.nanoTime();
		long deadline = started + SETTLE.toNanos();
		List<View> previous = null;
		List<View> views = List.of();
		while (System.nanoTime() < deadline) {
			List<View> read = instances.stream().map(View::read).toList();
			views = read;
			boolean agree = read.stream().allMatch((view) -> view.sameTotals(read.get(0)));
			if (agree && views.equals(previous)) {
				break;
			}
			previous = views;
			LockSupport.parkNanos(300_000_000);
		}
		System.out.printf("Regions settled in %d ms: %s%n", (System.nanoTime() - started) / 1_000_000, views.get(0));
		for (int instance = 0; instance < views.size(); instance++) {
			history.add(new Op(-1 - instance, "final", REGIONS.get(regionOf(instance)), 0, history.now(), history.now(),
					Outcome.OK, views.get(instance)));
		}
	}

	@Override
	public List<String> check(History history) {
		return new RegionChecker(history, clientsPerInstance()).check();
	}

	/**
	 * What a budget change answered.
	 *
	 * @param applied whether it took effect (spent, refunded, given or borrowed, maybe 0)
	 * @param moved the amount spent, refunded, given or borrowed
	 * @param remaining what was left as the region saw it
	 * @param replayed whether the id had been seen before
	 * @param recovering whether the region refused it while recovering
	 */
	record Answer(boolean applied, long moved, long remaining, boolean replayed, boolean recovering) {

		static final Answer RECOVERING = new Answer(false, 0, 0, false, true);

		Outcome outcome() {
			return this.applied ? Outcome.OK : Outcome.REFUSED;
		}

		@Override
		public String toString() {
			return this.recovering ? "recovering"
					: (this.moved + (this.replayed ? " replayed" : "") + " left " + this.remaining);
		}

	}

	/**
	 * One instance's views after the faults healed.
	 *
	 * @param counters each counter's total
	 * @param allottedRemaining the allotted budget's remaining
	 * @param shares every region's share of it
	 * @param sharedRemaining the shared budget's remaining
	 */
	record View(Map<String, Long> counters, long allottedRemaining, Map<String, Long> shares, long sharedRemaining) {

		static View read(ConfigurableApplicationContext instance) {
			try {
				RegionalCounters counters = instance.getBean(RegionalCounters.class);
				RegionalBudgets budgets = instance.getBean(RegionalBudgets.class);
				Map<String, Long> totals = new LinkedHashMap<>();
				COUNTERS.forEach((counter) -> totals.put(counter, counters.get(counter)));
				return new View(totals, budgets.remaining(ALLOTTED), Map.copyOf(budgets.shares(ALLOTTED)),
						budgets.remaining(SHARED));
			}
			catch (RuntimeException ex) {
				return new View(Map.of(), Long.MIN_VALUE, Map.of(), Long.MIN_VALUE);
			}
		}

		boolean sameTotals(View other) {
			return this.allottedRemaining != Long.MIN_VALUE && Objects.equals(this.counters, other.counters)
					&& this.allottedRemaining == other.allottedRemaining && this.shares.equals(other.shares)
					&& this.sharedRemaining == other.sharedRemaining;
		}

	}

	/**
	 * A deliberately broken build, to show that each checker catches it.
	 */
	enum Breakage {

		NONE,

		/** Every fifth increment applied twice. */
		DOUBLE_INCREMENT,

		/** Every refused spend of the allotted budget reported spent. */
		ALLOTTED_PAST_ZERO,

		/** Every refused spend of the shared budget reported spent. */
		SHARED_PAST_BOUND,

		/** Every give also made again under a new id, as a giver that forgot the id. */
		GIVE_TWICE,

		/** Every borrow also made again under a new id. */
		BORROW_TWICE

	}

}
