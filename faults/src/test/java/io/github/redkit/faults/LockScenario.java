package io.github.redkit.faults;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;

import io.github.redkit.lock.DistributedLocks;
import io.github.redkit.lock.LockHandle;
import io.github.redkit.lock.ReactiveDistributedLocks;
import org.jspecify.annotations.Nullable;

/**
 * Locks: blocking, asynchronous and reactive clients of three instances take a lock on
 * one of two keys (a short wait; a short lease, or the default lease renewed), write to a
 * shared {@link FencedResource} with their fencing token, sometimes stall far past the
 * lease, sometimes extend, then release; some give up on their future or subscription at
 * a random moment, or are interrupted. The checker holds the history to the fencing
 * promise and to mutual exclusion while a holder knows it holds.
 */
class LockScenario implements Scenario {

	static final Duration LEASE = Duration.ofMillis(500);

	private static final String NAME = "faults";

	private final Breakage breakage;

	private final Optional<Path> server;

	private final FencedResource resource = new FencedResource();

	private final AtomicInteger holders = new AtomicInteger();

	LockScenario() {
		this(Breakage.NONE);
	}

	LockScenario(Breakage breakage) {
		this(breakage, Optional.empty());
	}

	/**
	 * On another server, such as Valkey, whose {@code SET IFEQ} frees a lock its holder
	 * names to the byte.
	 */
	LockScenario(Optional<Path> server) {
		this(Breakage.NONE, server);
	}

	private LockScenario(Breakage breakage, Optional<Path> server) {
		this.breakage = breakage;
		this.server = server;
	}

	@Override
	public Optional<Path> server() {
		return this.server;
	}

	@Override
	public String capability() {
		return "locks";
	}

	@Override
	public String guarantee() {
		return "fencing tokens of one key strictly increase: an acquisition that began after another ended has the "
				+ "higher token, across restarts (empty, older snapshot) and clock steps, except after Redis lost its "
				+ "data while its clock was behind where it had been; the fenced resource never has two holders' "
				+ "accepted writes interleave; two holders of one key never both know they hold it (`isHeld()`) at "
				+ "once — a release or extend by a holder whose lease ran out frees nothing of the next holder's — "
				+ "a refusal only while another acquisition (held, or unknown until it could have landed and been "
				+ "released) may hold the key (not judged near a restart on an older snapshot or a failover); "
				+ "judged per epoch (restart empty or on an older snapshot, a step of Redis' clock forward: a holder "
				+ "across it is not judged; a step back, which only makes leases last longer, splits nothing)";
	}

	@Override
	public Set<Fault> faults() {
		return EnumSet.allOf(Fault.class);
	}

	@Override
	public List<String> properties() {
		return List.of("redkit.lock.lease-time=" + LEASE.toMillis() + "ms", "redkit.lock.redis-timeout=300ms",
				"redkit.lock.retry-interval=100ms", "redkit.reactive.enabled=true", "faults.broken=" + this.breakage);
	}

	@Override
	public List<Class<?>> sources() {
		return List.of(BrokenLocks.class);
	}

	@Override
	public void operate(Client client) throws Exception {
		String shared = "k" + client.random().nextInt(2);
		Duration lease = (client.random().nextInt(3) == 0) ? null : LEASE;
		long waitMillis = (client.random().nextInt(3) == 0) ? 0 : 20 + client.random().nextInt(150);
		int face = client.random().nextInt(10);
		// a build whose replays are refused shows as refusals no other acquisition
		// explains: its clients take keys of their own (a cut then meets an
		// acquisition that is granted), try once and never give up, so that no outcome
		// is unknown but for a fault and a hold begins where its acquisition was asked
		boolean patient = this.breakage == Breakage.REPLAY_NOT_RECOGNISED;
		String key = patient ? shared + "-" + client.process() : shared;
		Duration wait = Duration.ofMillis(patient ? 0 : waitMillis);
		long invoked = client.history().now();
		LockHandle handle;
		if (face < 5 || patient) {
			long interruptAt = (client.random().nextInt(6) == 0 && !patient) ? client.random().nextInt(200) : -1;
			try (Interrupter interrupter = Interrupter.after(interruptAt)) {
				handle = lock(client, "lock", key,
						() -> client.bean(DistributedLocks.class).tryLock(NAME, key, wait, lease));
				if (handle != null) {
					hold(client, key, handle, lease, invoked);
				}
			}
			return;
		}
		if (face < 7) {
			long giveUpAfter = client.random().nextInt((int) wait.toMillis() + 60);
			handle = lock(client, "lock-async", key, () -> {
				CompletableFuture<Optional<LockHandle>> future = client.bean(DistributedLocks.class)
					.tryLockAsync(NAME, key, wait, lease);
				try {
					return future.get(giveUpAfter, TimeUnit.MILLISECONDS);
				}
				finally {
					future.cancel(true);
				}
			});
		}
		else {
			Duration giveUpAfter = Duration.ofMillis(1 + client.random().nextInt((int) wait.toMillis() + 60));
			handle = lock(client, "lock-reactive", key,
					() -> Optional.ofNullable(client.bean(ReactiveDistributedLocks.class)
						.tryLock(NAME, key, wait, lease)
						.timeout(giveUpAfter)
						.block()));
		}
		if (handle != null) {
			hold(client, key, handle, lease, invoked);
		}
	}

	private static @Nullable LockHandle lock(Client client, String action, String key,
			java.util.concurrent.Callable<Optional<LockHandle>> call) {
		Optional<LockHandle> handle = client.history()
			.record(client.process(), action, key, 0, call,
					(answer) -> answer.isPresent() ? Outcome.OK : Outcome.REFUSED);
		return (handle != null) ? handle.orElse(null) : null;
	}

	private void hold(Client client, String key, LockHandle handle, @Nullable Duration lease, long invoked) {
		int holder = this.holders.incrementAndGet();
		long token = handle.fencingToken();
		long entered = client.history().now();
		long lastHeld = entered;
		try {
			int writes = 1 + client.random().nextInt(3);
			for (int i = 0; i < writes && !Thread.currentThread().isInterrupted(); i++) {
				long stall = (client.random().nextInt(6) == 0) ? 600 + client.random().nextInt(600)
						: 2 + client.random().nextInt(30);
				LockSupport.parkNanos(stall * 1_000_000);
				if (lease != null && client.random().nextInt(3) == 0) {
					Boolean extended = client.history()
						.record(client.process(), "extend", key, token, () -> handle.extend(LEASE),
								(ok) -> ok ? Outcome.OK : Outcome.REFUSED);
					if (Boolean.TRUE.equals(extended) && handle.isHeld()) {
						lastHeld = client.history().now();
					}
				}
				boolean held = handle.isHeld();
				long at = client.history().now();
				if (held) {
					lastHeld = at;
				}
				boolean accepted = this.resource.write(key, token, holder, at);
				client.history()
					.add(new Op(client.process(), "write", key, token, at, at, accepted ? Outcome.OK : Outcome.REFUSED,
							"holder " + holder + (held ? " held" : " stale")));
			}
		}
		finally {
			if (handle.isHeld()) {
				lastHeld = client.history().now();
			}
			client.history()
				.add(new Op(client.process(), "hold", key, token, entered, lastHeld, Outcome.OK,
						new Held(holder, invoked)));
			client.history()
				.record(client.process(), "release", key, token, handle::release,
						(held) -> held ? Outcome.OK : Outcome.REFUSED);
		}
	}

	@Override
	public List<String> check(History history) {
		return LockChecker.check(history, this.resource.accepted());
	}

	@Override
	public Record evidence() {
		return new Evidence(this.resource.accepted());
	}

	@Override
	public void restore(Object evidence) {
		((Evidence) evidence).accepted().forEach(this.resource::restore);
	}

	/**
	 * What the checker reads beyond the history.
	 *
	 * @param accepted the fenced resource's accepted writes, in order
	 */
	record Evidence(List<FencedResource.Accepted> accepted) {
	}

	/**
	 * One acquisition's hold, as the checker needs it.
	 *
	 * @param holder its number in the fenced resource
	 * @param lockInvoked when its acquire was invoked
	 */
	record Held(int holder, long lockInvoked) {

		@Override
		public String toString() {
			return "holder " + this.holder;
		}

	}

	/**
	 * A deliberately broken build, to show that the checker catches it.
	 */
	enum Breakage {

		NONE,

		/** Fencing tokens from a counter of each instance, not from Redis. */
		LOCAL_TOKEN,

		/** A handle that believes it holds the lock until it is closed, lease or not. */
		IGNORE_LEASE,

		/** A release that deletes the lock whoever holds it. */
		RELEASE_ANY,

		/**
		 * The acquire script without "this very acquisition, delivered again": a replay
		 * finds the lock held by its own first delivery (issue 43).
		 */
		REPLAY_NOT_RECOGNISED

	}

}
