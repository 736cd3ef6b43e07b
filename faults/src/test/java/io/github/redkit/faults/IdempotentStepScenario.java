package io.github.redkit.faults;

import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import io.github.redkit.idempotency.IdempotentSteps;
import io.github.redkit.idempotency.ReactiveIdempotentSteps;
import io.github.redkit.idempotency.StepClaim;
import io.github.redkit.idempotency.StepClaimLostException;
import io.github.redkit.idempotency.StepOutcome;

/**
 * Idempotent steps delivered again and again: clients of three instances claim random
 * steps from a small pool (blocking, or reactive subscribers that cancel at a random
 * moment), apply the step's effect to a fenced store and complete it with a result of
 * their own; some stall past their lease first, renew it, fail and abandon, or walk away.
 * The {@link IdempotentStepChecker} judges the history.
 */
class IdempotentStepScenario implements Scenario {

	/** The lease of every claim: short, so that stalls outlive it. */
	static final Duration LEASE = Duration.ofMillis(400);

	/**
	 * How long the clients deliver the steps of one generation of operations (and, now
	 * and then, the generation before): a done step answers duplicates only, so new steps
	 * keep coming.
	 */
	private static final long GENERATION_NANOS = Duration.ofMillis(400).toNanos();

	private final FencedStepStore store = new FencedStepStore();

	private final AtomicLong results = new AtomicLong();

	private final Breakage breakage;

	IdempotentStepScenario() {
		this(Breakage.NONE);
	}

	IdempotentStepScenario(Breakage breakage) {
		this.breakage = breakage;
	}

	@Override
	public String capability() {
		return "idempotent steps";
	}

	@Override
	public String guarantee() {
		return "a step is granted to one claim at a time: no claim while another's lease certainly runs (renewals "
				+ "counted) and none once it is done, so its effect is applied once through a fenced store unless "
				+ "its holder's completion failed and its lease ran out; a holder whose claim was taken over cannot "
				+ "complete; a duplicate replays the completer's result; IN_PROGRESS only while a claim (granted or "
				+ "unknown) may still hold its lease. Judged per epoch: Redis restarted empty or on an older "
				+ "snapshot forgets the steps done or claimed after it (they run again), a step of Redis' clock "
				+ "forward ends leases set before it early (a second claim across it is not judged); a step back "
				+ "only stretches them, and excuses nothing";
	}

	@Override
	public Set<Fault> faults() {
		return EnumSet.allOf(Fault.class);
	}

	@Override
	public List<String> properties() {
		return List.of("redkit.idempotency.timeout=500ms", "redkit.reactive.enabled=true",
				"faults.broken-steps=" + this.breakage);
	}

	@Override
	public List<Class<?>> sources() {
		return List.of(BrokenIdempotentSteps.class);
	}

	@Override
	public void operate(Client client) throws Exception {
		try {
			deliver(client);
		}
		finally {
			// a call that failed at once must not spin
			LockSupport.parkNanos(500_000 + client.random().nextInt(2_000_000));
		}
	}

	private void deliver(Client client) {
		String step = step(client);
		int mode = client.random().nextInt(100);
		if (mode < 4) {
			client.history()
				.record(client.process(), "result", step, 0,
						() -> client.bean(IdempotentSteps.class).result(operation(step), name(step), String.class),
						(read) -> Outcome.OK);
			return;
		}
		if (mode < 6) {
			// a caller that removes whichever claim holds the step
			client.history().record(client.process(), "abandon-any", step, 0, () -> {
				client.bean(IdempotentSteps.class).abandon(operation(step), name(step));
				return "any";
			}, (done) -> Outcome.OK);
			return;
		}
		StepClaim claim = (mode < 80) ? claim(client, "claim", step,
				() -> client.bean(IdempotentSteps.class).claim(operation(step), name(step), null, null, LEASE, null))
				: claimReactive(client, step);
		if (claim == null || claim.outcome() != StepOutcome.CLAIMED) {
			return;
		}
		this.store.granted(step, claim.token());
		work(client, step, claim);
	}

	private StepClaim claimReactive(Client client, String step) {
		// a subscriber that cancels at a random moment: a claim granted meanwhile is
		// abandoned
		Duration wait = Duration.ofMillis(1 + client.random().nextInt(20));
		return claim(client, "claim-reactive", step,
				() -> client.bean(ReactiveIdempotentSteps.class)
					.claim(operation(step), name(step), null, null, LEASE, null)
					.timeout(wait)
					.block());
	}

	private static StepClaim claim(Client client, String action, String step, Callable<StepClaim> call) {
		Claimed claimed = client.history().record(client.process(), action, step, 0, () -> {
			StepClaim claim = call.call();
			return new Claimed(claim.token(), claim.outcome(), claim.storedResult(), claim);
		}, (answer) -> (answer.outcome == StepOutcome.CLAIMED) ? Outcome.OK : Outcome.REFUSED);
		return (claimed != null) ? claimed.claim : null;
	}

	private void work(Client client, String step, StepClaim claim) {
		IdempotentSteps steps = client.bean(IdempotentSteps.class);
		int plan = client.random().nextInt(100);
		if (plan < 10) {
			// the work failed: nothing applied, the claim given back for a retry
			record(client, "abandon", step, claim.token(), () -> steps.abandon(claim));
			return;
		}
		if (plan < 14) {
			// a holder that walks away (crashes): its lease ends the claim
			return;
		}
		if (plan < 30) {
			// a holder that stalls past its lease: another delivery may take the step
			// over
			pause(LEASE.toMillis() + 50 + client.random().nextInt(300));
		}
		else if (plan < 45) {
			pause(client.random().nextInt((int) LEASE.toMillis() / 2));
			record(client, "extend", step, claim.token(), () -> {
				if (!steps.extend(claim)) {
					throw new StepClaimLostException(claim.operation(), claim.step());
				}
			});
			pause(client.random().nextInt((int) LEASE.toMillis() / 2));
		}
		long invoked = client.history().now();
		boolean applied = this.store.apply(step, claim.token());
		client.history()
			.add(new Op(client.process(), "apply", step, 0, invoked, client.history().now(),
					applied ? Outcome.OK : Outcome.REFUSED, new Completion(claim.token(), "")));
		String result = "r" + client.process() + "-" + this.results.incrementAndGet();
		if (client.random().nextInt(10) == 0) {
			// a caller that gives up on its completion at a random moment
			long waitMillis = client.random().nextInt(10);
			record(client, "complete", step, claim.token(), result, () -> steps.completeAsync(claim, result)
				.get(waitMillis, java.util.concurrent.TimeUnit.MILLISECONDS));
		}
		else {
			record(client, "complete", step, claim.token(), result, () -> steps.complete(claim, result));
		}
	}

	private static void record(Client client, String action, String step, String token, ThrowingRunnable call) {
		record(client, action, step, token, "", call);
	}

	private static void record(Client client, String action, String step, String token, String result,
			ThrowingRunnable call) {
		long invoked = client.history().now();
		Outcome outcome;
		try {
			call.run();
			outcome = Outcome.OK;
		}
		catch (StepClaimLostException ex) {
			outcome = Outcome.REFUSED;
		}
		catch (Exception ex) {
			outcome = (ex.getCause() instanceof StepClaimLostException) ? Outcome.REFUSED : Outcome.UNKNOWN;
			if (ex instanceof InterruptedException) {
				Thread.currentThread().interrupt();
			}
		}
		client.history()
			.add(new Op(client.process(), action, step, 0, invoked, client.history().now(), outcome,
					new Completion(token, result)));
	}

	private static void pause(long millis) {
		LockSupport.parkNanos(millis * 1_000_000);
	}

	/**
	 * One of six operations of the current generation, each with one first step (a step
	 * with no {@code after}).
	 */
	private static String step(Client client) {
		long generation = client.history().now() / GENERATION_NANOS;
		if (generation > 0 && client.random().nextInt(4) == 0) {
			generation--;
		}
		int operation = client.random().nextInt(6);
		return "g" + generation + "o" + operation + "/s" + (operation % 2);
	}

	static String operation(String step) {
		return step.substring(0, step.indexOf('/'));
	}

	static String name(String step) {
		return step.substring(step.indexOf('/') + 1);
	}

	@Override
	public List<String> check(History history) {
		return new IdempotentStepChecker(history, LEASE).violations();
	}

	/**
	 * A claim's answer.
	 */
	record Claimed(String token, StepOutcome outcome, String stored, StepClaim claim) {

		@Override
		public String toString() {
			return this.outcome + " " + this.token + ((this.stored != null) ? " replayed " + this.stored : "");
		}

	}

	/**
	 * What a holder did with its claim: the claim's token, and the result it completed
	 * with.
	 */
	record Completion(String token, String result) {

		@Override
		public String toString() {
			return this.token + (this.result.isEmpty() ? "" : " result " + this.result);
		}

	}

	@FunctionalInterface
	interface ThrowingRunnable {

		void run() throws Exception;

	}

	/**
	 * A deliberately broken build, to show that the checker catches it.
	 */
	enum Breakage {

		NONE,

		/** One refused claim in five (duplicate or in progress) is answered CLAIMED. */
		DUPLICATE_CLAIM,

		/**
		 * Every completion by a claim completes whichever claim holds the step, as a
		 * script that skipped its token check would.
		 */
		STALE_COMPLETE,

		/**
		 * The claim script without "this very claim, delivered again": a replay finds the
		 * step held by its own first delivery and answers IN_PROGRESS (issue 43).
		 */
		REPLAY_NOT_RECOGNISED

	}

}
