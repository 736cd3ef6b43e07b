package io.github.redkit.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import io.github.redkit.pubsub.ControlSnapshot;
import io.github.redkit.pubsub.ControlState;
import org.jspecify.annotations.Nullable;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * Durable control state: clients of three instances set new values of a few groups (a
 * unique number each), every instance follows every group with a listener that records
 * what it applied. Once the faults heal, every instance must converge to the state Redis
 * holds within a bound, and no view may ever go back to an older version (the README: "a
 * version older than the last one delivered is never delivered"); a view of a version
 * holds that version's values (version and values are read atomically).
 */
class ControlStateScenario implements Scenario {

	static final List<String> GROUPS = List.of("g0", "g1", "g2");

	/** How long after the faults healed every instance must have converged. */
	static final Duration CONVERGENCE_LIMIT = Duration.ofSeconds(10);

	/** When each group but the first stops changing (nanoseconds into the run). */
	private static final Map<String, Long> SETS_UNTIL_NANOS = Map.of("g1", 2_000_000_000L, "g2", 4_000_000_000L);

	private final Breakage breakage;

	private final Duration limit;

	private final String run = UUID.randomUUID().toString();

	private final ControlViews views = ControlViews.register(this.run);

	private final AtomicLong sequence = new AtomicLong();

	private final Map<String, ControlSnapshot> targets = new HashMap<>();

	private volatile long convergedMillis = -1;

	private volatile String divergence;

	ControlStateScenario() {
		this(Breakage.NONE, CONVERGENCE_LIMIT);
	}

	ControlStateScenario(Breakage breakage) {
		// a broken build is judged with a shorter bound: the runs observed converge in
		// well under a second
		this(breakage, (breakage != Breakage.NONE) ? Duration.ofSeconds(3) : CONVERGENCE_LIMIT);
	}

	ControlStateScenario(Breakage breakage, Duration limit) {
		this.breakage = breakage;
		this.limit = limit;
	}

	@Override
	public String capability() {
		return "control state";
	}

	@Override
	public String guarantee() {
		return "within " + this.limit.toSeconds() + " s of the faults healing, every instance applied the "
				+ "version and values Redis holds for every group; an instance's versions of a group never go back; "
				+ "an applied version carries the values set with it; the stored version never goes below one a "
				+ "set returned. Under data loss (Redis restarted empty or on an older snapshot) an instance may keep "
				+ "a newer state than Redis then holds, until a set with a higher version";
	}

	@Override
	public Set<Fault> faults() {
		return EnumSet.allOf(Fault.class);
	}

	@Override
	public List<String> properties() {
		return List.of("faults.run=" + this.run, "faults.broken=" + this.breakage);
	}

	@Override
	public List<String> instanceProperties(int instance, Rig rig) {
		List<String> properties = new ArrayList<>(Scenario.super.instanceProperties(instance, rig));
		properties.add("faults.instance=" + instance);
		properties.add("redkit.pubsub.control.subscriber-id=i" + instance);
		return properties;
	}

	@Override
	public List<Class<?>> sources() {
		return List.of(ControlViews.Listeners.class);
	}

	@Override
	public void operate(Client client) throws Exception {
		this.views.bind(client.history());
		String group = GROUPS.get(client.random().nextInt(GROUPS.size()));
		ControlState state = client.bean(ControlState.class);
		// g1 and g2 stop changing early, so that an announcement missed during a late
		// fault is followed by none: only the resubscription's re-read can bring it
		boolean changing = client.history().now() < SETS_UNTIL_NANOS.getOrDefault(group, Long.MAX_VALUE);
		if (changing && client.random().nextInt(5) > 0) {
			long n = this.sequence.incrementAndGet();
			client.history()
				.record(client.process(), "set", group, n, () -> state.set(group, "n", Long.toString(n)),
						(version) -> Outcome.OK);
		}
		else {
			client.history()
				.record(client.process(), "read", group, 0, () -> state.read(group), (snapshot) -> Outcome.OK);
		}
		LockSupport.parkNanos(5_000_000 + client.random().nextInt(20_000_000));
	}

	@Override
	public void settle(List<ConfigurableApplicationContext> instances, History history) {
		this.views.bind(history);
		boolean dataLoss = dataLoss(history);
		ControlState state = instances.get(0).getBean(ControlState.class);
		long started = System.nanoTime();
		long deadline = started + this.limit.toNanos();
		String behind = "nothing read";
		while (true) {
			try {
				behind = behind(state, instances.size(), dataLoss);
				if (behind == null) {
					this.convergedMillis = (System.nanoTime() - started) / 1_000_000;
					break;
				}
			}
			catch (RuntimeException ex) {
				behind = "Redis not readable: " + ex;
			}
			if (System.nanoTime() - deadline > 0) {
				this.divergence = behind;
				break;
			}
			LockSupport.parkNanos(20_000_000);
		}
		history.add(new Op(-1, "converge", "all", this.convergedMillis, history.now(), history.now(),
				(this.divergence == null) ? Outcome.OK : Outcome.UNKNOWN, this.targets.values()));
	}

	/**
	 * What is still behind Redis' state, or {@code null} when every view caught up.
	 */
	private String behind(ControlState state, int instances, boolean dataLoss) {
		List<String> behind = new ArrayList<>();
		for (String group : GROUPS) {
			ControlSnapshot target = state.read(group);
			this.targets.put(group, target);
			for (int instance = 0; instance < instances; instance++) {
				ControlViews.View view = this.views.latest(instance, group);
				boolean same = view.version() == target.version() && view.value().equals(target.get("n", ""));
				boolean keptNewer = dataLoss && view.version() > target.version();
				if (!same && !keptNewer) {
					behind.add(view + " while Redis holds v" + target.version() + " n=" + target.get("n", ""));
				}
			}
		}
		return behind.isEmpty() ? null : String.join("; ", behind);
	}

	private static boolean dataLoss(History history) {
		return history.faults()
			.stream()
			.anyMatch((fault) -> fault.event().fault() == Fault.RESTART_EMPTY
					|| fault.event().fault().keepsWhatCameBefore());
	}

	@Override
	public Record evidence() {
		return new Evidence(List.copyOf(this.views.views), Map.copyOf(this.targets), this.divergence);
	}

	@Override
	public void restore(Object evidence) {
		Evidence recorded = (Evidence) evidence;
		this.views.views.addAll(recorded.views());
		this.targets.putAll(recorded.targets());
		this.divergence = recorded.divergence();
	}

	@Override
	public List<String> check(History history) {
		ControlViews.forget(this.run);
		List<String> violations = new ArrayList<>();
		if (this.divergence != null) {
			violations.add("not converged within " + this.limit.toSeconds() + " s after the faults healed: "
					+ this.divergence);
		}
		Map<String, ControlViews.View> last = new HashMap<>();
		for (ControlViews.View view : this.views.views) {
			ControlViews.View before = last.put(view.instance() + "/" + view.group(), view);
			if (before != null && view.version() < before.version()) {
				violations.add("a view went back from " + before + " to " + view);
			}
		}
		Map<Long, List<Op>> sets = new HashMap<>();
		for (Op op : history.ops()) {
			if (op.action().equals("set") && op.ok()) {
				sets.computeIfAbsent((Long) op.value(), (version) -> new ArrayList<>()).add(op);
			}
		}
		for (ControlViews.View view : this.views.views) {
			List<Op> setWith = sets.getOrDefault(view.version(), List.of());
			// a version issued twice (a counter lost while Redis' clock was behind) is
			// not judged
			Op set = (setWith.size() == 1) ? setWith.get(0) : null;
			if (set != null && !view.value().equals(Long.toString(set.amount()))) {
				violations.add("a view holds other values than its version's: " + view + ", set by " + set);
			}
		}
		for (Op set : sets.values().stream().flatMap(List::stream).toList()) {
			ControlSnapshot target = this.targets.get(set.key());
			boolean lostLater = history.faults()
				.stream()
				.anyMatch((fault) -> (fault.event().fault() == Fault.RESTART_EMPTY
						|| fault.event().fault().keepsWhatCameBefore()) && fault.healed() > set.invoked());
			if (target != null && target.version() < (Long) set.value() && !lostLater) {
				violations
					.add("Redis holds v" + target.version() + " of " + set.key() + " after a set returned " + set);
			}
		}
		return violations;
	}

	/**
	 * A deliberately broken build, to show that the checker catches it.
	 */
	/**
	 * What the checker reads beyond the history.
	 *
	 * @param views every view the instances' listeners applied, in order
	 * @param targets what Redis held of each group once the faults healed
	 * @param divergence what was still behind when the bound ran out, or {@code null}
	 */
	record Evidence(List<ControlViews.View> views, Map<String, ControlSnapshot> targets, @Nullable String divergence) {
	}

	enum Breakage {

		NONE,

		/** A view that applies its first snapshot and ignores every later one. */
		STUCK_VIEW,

		/** A view that applies its first version again after every fourth newer one. */
		BACKWARDS

	}

}
