package io.github.redkit.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import io.github.redkit.budget.BudgetNotFoundException;
import io.github.redkit.budget.Budgets;
import io.github.redkit.budget.ReactiveBudgets;
import io.github.redkit.budget.Reservation;
import io.github.redkit.budget.SpendResult;
import io.github.redkit.core.RedisKeyspace;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Budgets spent from by clients of three instances: spends with fresh operation ids
 * (retried with the same id after an unknown outcome, and now and then much later),
 * spends without an id, refunds, reservations committed (maybe for less), released or
 * abandoned to expire, reactive subscribers and futures given up at a random moment. A
 * client that finds its budget gone (Redis restarted empty) creates it again. One budget
 * is spent from through local allowances (spends without an id served from batches each
 * instance takes, blocking or given up on), its batches recorded as sent to Redis
 * ({@link BatchRecorder}). Once every fault healed, the instances' budgets stop (giving
 * back what their batches hold) and every reservation came back, the final balances are
 * read; the {@link BudgetChecker} judges the history.
 */
class BudgetScenario implements Scenario {

	/**
	 * The budget every instance spends from through a local allowance (batches of
	 * {@link #BATCH}, handed out for at most {@link #MAX_AGE_MILLIS}).
	 */
	static final String ALLOWANCE = "b2";

	static final long BATCH = 30;

	static final long MAX_AGE_MILLIS = 100;

	/** {@code redkit.budget.timeout}: an answer later than this is lost to the caller. */
	static final long TIMEOUT_MILLIS = 200;

	/**
	 * The longest a spend may take, whatever the faults: a batch being taken, then the
	 * spend itself, each within {@code redkit.budget.timeout}, and a margin for a busy
	 * machine.
	 */
	static final long DEADLINE_MILLIS = 3_000;

	/**
	 * The budgets and their initial balances: one runs dry, one does not, one is spent
	 * from through local allowances.
	 */
	static final Map<String, Long> BUDGETS = Map.of("b0", 200L, "b1", 1_000_000L, ALLOWANCE, 8_000L);

	private static final List<String> NAMES = BUDGETS.keySet().stream().sorted().toList();

	private final AtomicLong ids = new AtomicLong();

	// where this run's BatchRecorders write
	private final String run = UUID.randomUUID().toString();

	// spends of the allowance's budget under way, to tell a spend that hung
	private final Map<Long, Op> inFlight = new ConcurrentHashMap<>();

	private final Breakage breakage;

	BudgetScenario() {
		this(Breakage.NONE);
	}

	BudgetScenario(Breakage breakage) {
		this.breakage = breakage;
	}

	@Override
	public String capability() {
		return "budgets";
	}

	@Override
	public String guarantee() {
		return "acknowledged spends and commits never exceed the budget plus the refunds; answers to one operation id "
				+ "(spend, refund, reserve, an applied commit) are the first answer, so it applies once; once every "
				+ "reservation expired, the balance is the budget − acknowledged spends and commits + acknowledged "
				+ "refunds, each unknown outcome applied or not. Judged on what Redis still holds: Redis restarted "
				+ "empty loses the budget (until created again) and everything before; restarted on an older snapshot "
				+ "it loses the changes made after the snapshot (acknowledged ones too), and a retry with the same "
				+ "operation id then applies again. On a budget spent from through local allowances, a spend counts "
				+ "from when its batch may have been taken (up to max-age before); no answer shows a balance below "
				+ "zero; every spend ends within its deadline; each batch id is taken once, given back at most once "
				+ "within one memory, and a batch whose answer was lost, or whose give-back Redis did not answer, is "
				+ "given back (whole) in the end, into a Redis that still holds its spend";
	}

	@Override
	public Set<Fault> faults() {
		return EnumSet.allOf(Fault.class);
	}

	@Override
	public List<String> properties() {
		return List.of("redkit.budget.timeout=" + TIMEOUT_MILLIS + "ms", "redkit.reactive.enabled=true",
				"redkit.budget.local-allowances." + ALLOWANCE + ".size=" + BATCH,
				"redkit.budget.local-allowances." + ALLOWANCE + ".max-age=" + MAX_AGE_MILLIS + "ms",
				"faults.broken-budgets=" + this.breakage, "faults.batch-log=" + this.run);
	}

	@Override
	public List<Class<?>> sources() {
		return List.of(BrokenBudgets.class, BatchRecorder.class);
	}

	@Override
	public void prepare(List<ConfigurableApplicationContext> instances) {
		Budgets budgets = instances.get(0).getBean(Budgets.class);
		long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
		BUDGETS.forEach((budget, initial) -> {
			// a busy machine may answer the first script late: creating again replaces
			while (true) {
				try {
					budgets.create(budget, initial, true);
					return;
				}
				catch (RuntimeException ex) {
					if (System.nanoTime() > deadline) {
						throw ex;
					}
				}
			}
		});
	}

	@Override
	public void operate(Client client) throws Exception {
		try {
			change(client);
		}
		finally {
			// a call that failed at once must not spin
			LockSupport.parkNanos(500_000 + client.random().nextInt(2_000_000));
		}
	}

	private void change(Client client) throws Exception {
		// half of the calls spend from the allowance's budget, so that faults meet its
		// batches
		String budget = client.random().nextBoolean() ? ALLOWANCE : NAMES.get(client.random().nextInt(NAMES.size()));
		Budgets budgets = client.bean(Budgets.class);
		if (budget.equals(ALLOWANCE)) {
			spendFromAllowance(client, budgets);
			return;
		}
		long amount = 1 + client.random().nextInt(40);
		int mode = client.random().nextInt(100);
		// a build that drops the ids it generates shows only on calls without an id of
		// their own: its clients send every plain spend without one
		boolean anonymous = this.breakage == Breakage.NO_OPERATION_ID;
		if (mode < 35 && !anonymous) {
			String id = id(client, "s");
			retried(client, "spend", budget, amount, id, () -> budgets.spend(budget, amount, id));
		}
		else if (mode < 42) {
			record(client, "spend-anon", budget, amount, "a" + this.ids.incrementAndGet(),
					() -> budgets.spend(budget, amount));
		}
		else if (mode < 50) {
			// a subscriber that cancels, or a caller that gives up on its future, at a
			// random moment
			String id = id(client, "s");
			long waitMillis = 1 + client.random().nextInt(10);
			Callable<SpendResult> call = client.random().nextBoolean() ? () -> client.bean(ReactiveBudgets.class)
				.spend(budget, amount, id)
				.timeout(Duration.ofMillis(waitMillis))
				.block() : () -> budgets.spendAsync(budget, amount, id).get(waitMillis, TimeUnit.MILLISECONDS);
			if (record(client, "spend", budget, amount, id, call) == Outcome.UNKNOWN
					&& client.random().nextInt(3) > 0) {
				retried(client, "spend", budget, amount, id, () -> budgets.spend(budget, amount, id));
			}
		}
		else if (mode < 56) {
			long refund = 1 + client.random().nextInt(15);
			String id = id(client, "r");
			retried(client, "refund", budget, refund, id, () -> budgets.refund(budget, refund, id));
		}
		else if (mode < 92) {
			reserve(client, budgets, budget, amount);
		}
		else {
			client.history()
				.record(client.process(), "remaining", budget, 0, () -> budgets.remaining(budget),
						(left) -> Outcome.OK);
		}
	}

	/**
	 * Spends from the allowance's budget, served from batches: blocking, or a future the
	 * caller gives up on at a random moment (its amount may still be handed out); now and
	 * then a spend with an operation id (never from a batch) or a read. Every call has a
	 * deadline: one that has not ended by the settle hung.
	 */
	private void spendFromAllowance(Client client, Budgets budgets) throws Exception {
		long amount = 1 + client.random().nextInt(10);
		int mode = client.random().nextInt(100);
		if (mode < 55) {
			bounded(client, amount, () -> budgets.spend(ALLOWANCE, amount));
		}
		else if (mode < 85) {
			long waitMillis = 1 + client.random().nextInt(10);
			bounded(client, amount, () -> budgets.spendAsync(ALLOWANCE, amount).get(waitMillis, TimeUnit.MILLISECONDS));
		}
		else if (mode < 95) {
			String id = id(client, "s");
			retried(client, "spend", ALLOWANCE, amount, id, () -> budgets.spend(ALLOWANCE, amount, id));
		}
		else {
			client.history()
				.record(client.process(), "remaining", ALLOWANCE, 0, () -> budgets.remaining(ALLOWANCE),
						(left) -> Outcome.OK);
		}
	}

	private void bounded(Client client, long amount, Callable<SpendResult> call) {
		long key = this.ids.incrementAndGet();
		this.inFlight.put(key, new Op(client.process(), "spend-anon", ALLOWANCE, amount, client.history().now(), -1,
				Outcome.UNKNOWN, new Change("a" + key, null, 0, "hung")));
		try {
			record(client, "spend-anon", ALLOWANCE, amount, "a" + key, call);
		}
		finally {
			this.inFlight.remove(key);
		}
	}

	private void reserve(Client client, Budgets budgets, String budget, long amount) throws Exception {
		String id = id(client, "v");
		Duration ttl = Duration.ofMillis(200 + client.random().nextInt(400));
		Optional<Reservation> reserved = null;
		for (int attempt = 0; attempt < 3 && reserved == null; attempt++) {
			reserved = reserveOnce(client, budgets, budget, amount, ttl, id);
		}
		if (reserved == null || reserved.isEmpty()) {
			return;
		}
		Reservation reservation = reserved.get();
		int plan = client.random().nextInt(100);
		if (plan < 25) {
			// abandoned: its money comes back when it expires
			return;
		}
		// sometimes past the reservation's ttl: a commit then is not applied
		LockSupport.parkNanos(client.random().nextInt((int) ttl.toMillis() * 5 / 4) * 1_000_000L);
		if (plan < 45) {
			record(client, "release", budget, amount, reservation.id(), () -> {
				budgets.release(reservation);
				return null;
			});
			return;
		}
		long actual = client.random().nextInt((int) amount + 1);
		retried(client, "commit", budget, actual, reservation.id(), () -> budgets.commit(reservation, actual));
	}

	private Optional<Reservation> reserveOnce(Client client, Budgets budgets, String budget, long amount, Duration ttl,
			String id) {
		long invoked = client.history().now();
		try {
			Optional<Reservation> reservation = budgets.reserve(budget, amount, ttl, id);
			client.history()
				.add(new Op(client.process(), "reserve", budget, amount, invoked, client.history().now(),
						reservation.isPresent() ? Outcome.OK : Outcome.REFUSED,
						new Change(id, reservation.isPresent(), 0, reservation.map(Reservation::id).orElse(""))));
			return reservation;
		}
		catch (RuntimeException ex) {
			failed(client, "reserve", budget, amount, id, invoked, ex);
			return (ex instanceof BudgetNotFoundException) ? Optional.empty() : null;
		}
	}

	/**
	 * A change retried with the same operation id while its outcome is unknown, and now
	 * and then once more later, as a redelivered message would be.
	 */
	private void retried(Client client, String action, String budget, long amount, String id,
			Callable<SpendResult> call) throws Exception {
		Outcome outcome = record(client, action, budget, amount, id, call);
		for (int attempt = 0; attempt < 3 && outcome == Outcome.UNKNOWN; attempt++) {
			outcome = record(client, action, budget, amount, id, call);
		}
		if (client.random().nextInt(10) == 0) {
			LockSupport.parkNanos(client.random().nextInt(50) * 1_000_000L);
			record(client, action, budget, amount, id, call);
		}
	}

	private Outcome record(Client client, String action, String budget, long amount, String id,
			Callable<SpendResult> call) {
		long invoked = client.history().now();
		try {
			SpendResult result = call.call();
			boolean applied = (result == null) || result.applied();
			Outcome outcome = applied ? Outcome.OK : Outcome.REFUSED;
			client.history()
				.add(new Op(client.process(), action, budget, amount, invoked, client.history().now(), outcome,
						(result != null) ? new Change(id, applied, result.remaining(), "")
								: new Change(id, true, -1, "")));
			return outcome;
		}
		catch (Exception ex) {
			return failed(client, action, budget, amount, id, invoked, ex);
		}
	}

	private Outcome failed(Client client, String action, String budget, long amount, String id, long invoked,
			Exception ex) {
		boolean gone = ex instanceof BudgetNotFoundException || ex.getCause() instanceof BudgetNotFoundException;
		Outcome outcome = gone ? Outcome.REFUSED : Outcome.UNKNOWN;
		client.history()
			.add(new Op(client.process(), action, budget, amount, invoked, client.history().now(), outcome,
					new Change(id, null, 0, History.describe(ex))));
		if (ex instanceof InterruptedException) {
			Thread.currentThread().interrupt();
		}
		if (gone) {
			// Redis restarted empty: this application creates its budget again
			client.history()
				.record(client.process(), "create", budget, BUDGETS.get(budget),
						() -> client.bean(Budgets.class).create(budget, BUDGETS.get(budget)), (created) -> Outcome.OK);
		}
		return outcome;
	}

	private String id(Client client, String kind) {
		return kind + client.process() + "-" + this.ids.incrementAndGet();
	}

	/**
	 * Reads the final balances once every reservation came back (each budget call settles
	 * the expired ones first).
	 */
	@Override
	public void settle(List<ConfigurableApplicationContext> instances, History history) {
		// every spend still under way hung: the clients had their grace
		this.inFlight.values().forEach(history::add);
		// the instances give back what their batches did not hand out before the final
		// read
		instances.forEach((instance) -> ((SmartLifecycle) instance.getBean(Budgets.class)).stop());
		long origin = System.nanoTime() - history.now();
		for (BatchRecorder.Sent sent : BatchRecorder.LOGS.getOrDefault(this.run, List.of())) {
			history.add(new Op(-1, sent.command().equals("spend") ? "batch" : "give-back", sent.budget(), sent.amount(),
					sent.invoked() - origin, sent.completed() - origin,
					sent.lost() ? Outcome.UNKNOWN : ((Long) sent.reply().get(0) == 1) ? Outcome.OK : Outcome.REFUSED,
					sent));
		}
		BatchRecorder.LOGS.remove(this.run);
		Budgets budgets = instances.get(0).getBean(Budgets.class);
		StringRedisTemplate redis = instances.get(0).getBean(StringRedisTemplate.class);
		RedisKeyspace keyspace = instances.get(0).getBean(RedisKeyspace.class);
		long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
		for (String budget : NAMES) {
			String reservations = keyspace.key("budget").tag(budget).part("reservations").build();
			Object balance = null;
			while (System.nanoTime() < deadline) {
				try {
					balance = budgets.remaining(budget);
				}
				catch (BudgetNotFoundException ex) {
					balance = "gone";
					break;
				}
				catch (RuntimeException ex) {
					balance = History.describe(ex);
				}
				if (balance instanceof Long && redis.opsForHash().size(reservations) == 0) {
					break;
				}
				LockSupport.parkNanos(50_000_000);
			}
			history.add(new Op(-1, "final", budget, 0, history.now(), history.now(), Outcome.OK, balance));
		}
	}

	@Override
	public List<String> check(History history) {
		return new BudgetChecker(history, BUDGETS, ALLOWANCE).violations();
	}

	/**
	 * What a change answered: its operation id (or reservation id), whether it applied
	 * ({@code null} when unknown or when the budget was gone), the balance it reported,
	 * and a reservation's id or why it failed.
	 */
	record Change(String id, Boolean applied, long remaining, String detail) {

		@Override
		public String toString() {
			return this.id + ((this.applied != null)
					? (this.applied ? " applied" : " not applied") + " left " + this.remaining : "")
					+ (this.detail.isEmpty() ? "" : " " + this.detail);
		}

	}

	/**
	 * A deliberately broken build, to show that the checker catches it.
	 */
	enum Breakage {

		NONE,

		/** Every fifth retry of a spend's operation id is sent with a new id. */
		IGNORED_ID,

		/**
		 * One refused spend in three is reported applied, as a script that skipped its
		 * check would.
		 */
		OVER_SPEND,

		/**
		 * Every second give-back of a local allowance's batch is sent again under a
		 * record of its own, so it applies twice.
		 */
		GIVEN_BACK_TWICE,

		/**
		 * Every third batch of a local allowance is taken under the id of the budget's
		 * first batch: Redis replays that spend and takes nothing for it.
		 */
		BATCH_REUSED,

		/**
		 * A spend or reservation without an operation id sent without the id the library
		 * generates for it, as 0.1.0 sent it: a replay applies it again (issue 43).
		 */
		NO_OPERATION_ID

	}

}
