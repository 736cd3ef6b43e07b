package io.github.redkit.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
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
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Budgets spent from by clients of three instances: spends with fresh operation ids
 * (retried with the same id after an unknown outcome, and now and then much later),
 * spends without an id, refunds, reservations committed (maybe for less), released or
 * abandoned to expire, reactive subscribers and futures given up at a random moment. A
 * client that finds its budget gone (Redis restarted empty) creates it again. Once every
 * fault healed and every reservation came back, the final balances are read; the
 * {@link BudgetChecker} judges the history.
 */
class BudgetScenario implements Scenario {

	/** The budgets and their initial balances: one runs dry, one does not. */
	static final Map<String, Long> BUDGETS = Map.of("b0", 200L, "b1", 1_000_000L);

	private static final List<String> NAMES = BUDGETS.keySet().stream().sorted().toList();

	private final AtomicLong ids = new AtomicLong();

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
				+ "operation id then applies again";
	}

	@Override
	public Set<Fault> faults() {
		return EnumSet.allOf(Fault.class);
	}

	@Override
	public List<String> properties() {
		return List.of("redkit.budget.timeout=500ms", "redkit.reactive.enabled=true",
				"faults.broken-budgets=" + this.breakage);
	}

	@Override
	public List<Class<?>> sources() {
		return List.of(BrokenBudgets.class);
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
		String budget = NAMES.get(client.random().nextInt(NAMES.size()));
		Budgets budgets = client.bean(Budgets.class);
		long amount = 1 + client.random().nextInt(40);
		int mode = client.random().nextInt(100);
		if (mode < 35) {
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
		return new BudgetChecker(history, BUDGETS).violations();
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
		OVER_SPEND

	}

}
