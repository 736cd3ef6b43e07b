package io.github.redkit.budget.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Supplier;

import io.github.redkit.budget.BudgetNotFoundException;
import io.github.redkit.budget.BudgetObservationKind;
import io.github.redkit.budget.BudgetOverflowException;
import io.github.redkit.budget.Budgets;
import io.github.redkit.budget.Reservation;
import io.github.redkit.budget.SpendResult;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.RedkitOutcomes;
import io.github.redkit.core.internal.LocalBatchLifecycle;
import io.github.redkit.core.internal.LuaScript;
import io.github.redkit.core.internal.RandomIds;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.core.internal.ReplayWindow;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.RedisSystemException;
import org.springframework.util.Assert;

/**
 * {@link Budgets} on Redis: every call is one {@code budget_apply} script on the keys of
 * one budget, which share a hash tag: {@code <prefix>:budget:{<id>}:balance},
 * {@code :reservations} (id &rarr; amount), {@code :deadlines} (id &rarr; deadline) and
 * {@code :op:<kind>:<operation id>} (the first result of an idempotent call, with a ttl).
 * Every call is sent asynchronously; the blocking methods wait for the same call their
 * {@code *Async} twins return, so both faces share keys, script, checks and meters.
 */
public class RedisBudgets implements Budgets, SmartLifecycle {

	private static final LuaScript<List> APPLY = LuaScript.load("budget_apply", List.class);

	// the same script giving back what a caller held (a batch's unused part, a
	// reservation): sent once a connection frees even after its caller's timeout, or
	// the amount would stay spent, or reserved until its ttl ends
	private static final LuaScript<List> GIVE_BACK = APPLY.givingBack();

	private static final String MAX = Long.toString(MAX_AMOUNT);

	/**
	 * How many timeouts stopping waits for the give-backs of local allowances that Redis
	 * has not answered yet: a few attempts, never an application that cannot stop.
	 */
	private static final int GIVE_BACK_ATTEMPTS = 5;

	/**
	 * Lettuce's command timeout when the connection's is not known: the longest a command
	 * is sent again after a reconnect (Spring's client options time commands out).
	 */
	public static final Duration DEFAULT_COMMAND_TIMEOUT = ReplayWindow.DEFAULT_COMMAND_TIMEOUT;

	private static final RedkitOutcomes<Answer> APPLIED = RedkitOutcomes.of(RedisBudgets::outcome);

	private final RedisScriptRunner runner;

	private final RedisKeyspace keyspace;

	private final Duration timeout;

	private final Duration operationTtl;

	private volatile String onceTtl;

	private final RedkitMetrics metrics;

	private final RedkitObservations observations;

	private final BudgetAllowances allowances;

	private final LocalBatchLifecycle lifecycle;

	/**
	 * Creates budgets.
	 * @param runner runs the scripts
	 * @param keyspace builds the keys
	 * @param timeout the longest wait for Redis; then the call fails (closed)
	 * @param operationTtl how long the first result of an idempotent call is kept
	 * @param metrics receives outcomes
	 * @param observations where budget changes are observed (as
	 * {@code redkit.budget.apply}), {@link RedkitObservations#NONE} for nowhere
	 */
	public RedisBudgets(RedisScriptRunner runner, RedisKeyspace keyspace, Duration timeout, Duration operationTtl,
			RedkitMetrics metrics, RedkitObservations observations) {
		this(runner, keyspace, timeout, operationTtl, metrics, observations, Map.of());
	}

	/**
	 * Creates budgets some of which spend from local allowances.
	 * @param runner runs the scripts
	 * @param keyspace builds the keys
	 * @param timeout the longest wait for Redis; then the call fails (closed)
	 * @param operationTtl how long the first result of an idempotent call is kept
	 * @param metrics receives outcomes
	 * @param observations where budget changes are observed (as
	 * {@code redkit.budget.apply}), {@link RedkitObservations#NONE} for nowhere
	 * @param allowances the local allowances of the budgets that have one, by budget id
	 */
	public RedisBudgets(RedisScriptRunner runner, RedisKeyspace keyspace, Duration timeout, Duration operationTtl,
			RedkitMetrics metrics, RedkitObservations observations, Map<String, BudgetAllowance> allowances) {
		Assert.notNull(observations, "observations must not be null");
		// a batch is given back at its max-age, and only while Redis holds the record of
		// its spend (kept for the operation ttl): half of it is left for the give-back
		allowances.forEach(
				(budgetId, allowance) -> Assert.isTrue(allowance.maxAge().multipliedBy(2).compareTo(operationTtl) < 0,
						() -> "Budget '" + budgetId + "': a local allowance's max-age (" + allowance.maxAge()
								+ ") must be less than half of the operation-ttl (" + operationTtl
								+ "), which keeps the record its give-back needs"));
		this.observations = observations;
		this.runner = runner;
		this.keyspace = keyspace;
		this.timeout = timeout;
		this.operationTtl = operationTtl;
		this.onceTtl = Long.toString(ReplayWindow.of(DEFAULT_COMMAND_TIMEOUT, timeout, operationTtl).toMillis());
		this.metrics = metrics;
		this.allowances = new BudgetAllowances(allowances, new BudgetAllowances.Budget() {

			@Override
			public CompletableFuture<SpendResult> spend(String budgetId, long amount) {
				return spendInRedis(budgetId, amount);
			}

			@Override
			public CompletableFuture<SpendResult> spend(String budgetId, long amount, String operationId) {
				return spendAsync(budgetId, amount, operationId);
			}

			@Override
			public CompletableFuture<SpendResult> giveBack(String budgetId, long amount, String operationId) {
				return started(
						() -> callAsync(new BudgetCommand(budgetId, "refund", operationId, "giveback", amount, "", "0"))
							.thenApply((answer) -> record("refund", answer).result()));
			}

		}, metrics, System::nanoTime, timeout.multipliedBy(GIVE_BACK_ATTEMPTS));
		this.lifecycle = this.allowances.lifecycle();
	}

	/**
	 * Sets the connection's command timeout ({@link #DEFAULT_COMMAND_TIMEOUT} unless
	 * set): Lettuce sends a command again after a reconnect until then, so the operation
	 * id generated for a spend or a reservation without one is kept for twice the longer
	 * of it and the budgets' timeout (never longer than the operation ttl).
	 * @param commandTimeout the connection's command timeout
	 */
	public void setCommandTimeout(Duration commandTimeout) {
		Assert.isTrue(commandTimeout != null && commandTimeout.toMillis() > 0, "commandTimeout must be positive");
		this.onceTtl = Long.toString(ReplayWindow.of(commandTimeout, this.timeout, this.operationTtl).toMillis());
	}

	/**
	 * Calls {@code retired} with the budget id on the thread that retired a local
	 * allowance's batch (at its max-age, or found by a spend it could not serve), between
	 * its leaving its slot and its give-back: for tests that hold a thread there.
	 * @param retired what is called
	 */
	void whenRetired(Consumer<String> retired) {
		this.allowances.whenRetired(retired);
	}

	@Override
	public void start() {
		this.lifecycle.start();
	}

	/**
	 * Gives back what the local allowances hold unused, while the connections are still
	 * open: this stops before the connection factory does.
	 */
	@Override
	public void stop() {
		this.lifecycle.stop();
	}

	@Override
	public boolean isRunning() {
		return this.lifecycle.isRunning();
	}

	@Override
	public boolean create(String budgetId, long amount) {
		return create(budgetId, amount, false);
	}

	@Override
	public boolean create(String budgetId, long amount, boolean replace) {
		checkAmount(amount, true);
		return call(createCommand(budgetId, amount, replace)).applied();
	}

	@Override
	public CompletableFuture<Boolean> createAsync(String budgetId, long amount, boolean replace) {
		return started(() -> {
			checkAmount(amount, true);
			return callAsync(createCommand(budgetId, amount, replace)).thenApply(Answer::applied);
		});
	}

	// a create or a delete sent twice (issue 43) would answer what it did as not done,
	// and
	// undo what another instance did in between (a replace: a spend; a create refused: a
	// delete; a delete: a create): one record per call, under an id generated per call
	private static BudgetCommand createCommand(String budgetId, long amount, boolean replace) {
		return BudgetCommand.once(budgetId, "create", amount, RandomIds.next(), replace ? "1" : "0", "0");
	}

	private static BudgetCommand deleteCommand(String budgetId) {
		return BudgetCommand.once(budgetId, "delete", 0, RandomIds.next(), "", "0");
	}

	@Override
	public boolean delete(String budgetId) {
		return call(deleteCommand(budgetId)).applied();
	}

	@Override
	public CompletableFuture<Boolean> deleteAsync(String budgetId) {
		return started(() -> callAsync(deleteCommand(budgetId)).thenApply(Answer::applied));
	}

	@Override
	public long remaining(String budgetId) {
		return call(new BudgetCommand(budgetId, null, null, "remaining", 0, "", "0")).result().remaining();
	}

	@Override
	public CompletableFuture<Long> remainingAsync(String budgetId) {
		return started(() -> callAsync(new BudgetCommand(budgetId, null, null, "remaining", 0, "", "0"))
			.thenApply((answer) -> answer.result().remaining()));
	}

	@Override
	public SpendResult spend(String budgetId, long amount) {
		checkAmount(amount, false);
		BudgetAllowance allowance = this.allowances.of(budgetId, amount);
		if (allowance != null) {
			return RedisScriptRunner.join(this.allowances.spend(budgetId, allowance, amount));
		}
		return record("spend", call(spendOnce(budgetId, amount))).result();
	}

	@Override
	public CompletableFuture<SpendResult> spendAsync(String budgetId, long amount) {
		return started(() -> {
			checkAmount(amount, false);
			BudgetAllowance allowance = this.allowances.of(budgetId, amount);
			if (allowance != null) {
				return this.allowances.spend(budgetId, allowance, amount);
			}
			return spendInRedis(budgetId, amount);
		});
	}

	private CompletableFuture<SpendResult> spendInRedis(String budgetId, long amount) {
		return callAsync(spendOnce(budgetId, amount)).thenApply((answer) -> record("spend", answer).result());
	}

	// a spend the caller gave no id: Lettuce may still send it twice (issue 43)
	private static BudgetCommand spendOnce(String budgetId, long amount) {
		return BudgetCommand.once(budgetId, "spend", amount, RandomIds.next(), "", "0");
	}

	@Override
	public SpendResult spend(String budgetId, long amount, String operationId) {
		checkAmount(amount, false);
		return record("spend", call(new BudgetCommand(budgetId, "spend", operationId, "spend", amount, "", "0")))
			.result();
	}

	@Override
	public CompletableFuture<SpendResult> spendAsync(String budgetId, long amount, String operationId) {
		return started(() -> {
			checkAmount(amount, false);
			return callAsync(new BudgetCommand(budgetId, "spend", operationId, "spend", amount, "", "0"))
				.thenApply((answer) -> record("spend", answer).result());
		});
	}

	@Override
	public SpendResult refund(String budgetId, long amount, String operationId) {
		checkAmount(amount, false);
		return record("refund", call(new BudgetCommand(budgetId, "refund", operationId, "refund", amount, "", "0")))
			.result();
	}

	@Override
	public CompletableFuture<SpendResult> refundAsync(String budgetId, long amount, String operationId) {
		return started(() -> {
			checkAmount(amount, false);
			return callAsync(new BudgetCommand(budgetId, "refund", operationId, "refund", amount, "", "0"))
				.thenApply((answer) -> record("refund", answer).result());
		});
	}

	@Override
	public Optional<Reservation> reserve(String budgetId, long amount, Duration ttl) {
		checkReservation(amount, ttl);
		String id = RandomIds.next();
		// the reservation's own random id is the operation id of a call sent twice
		Answer answer = record("reserve",
				call(BudgetCommand.once(budgetId, "reserve", amount, id, id, ttl.toMillis() + "")));
		return reservation(budgetId, amount, answer, id);
	}

	@Override
	public CompletableFuture<Optional<Reservation>> reserveAsync(String budgetId, long amount, Duration ttl) {
		return started(() -> {
			checkReservation(amount, ttl);
			String id = RandomIds.next();
			return callAsync(BudgetCommand.once(budgetId, "reserve", amount, id, id, ttl.toMillis() + ""))
				.thenApply((answer) -> reservation(budgetId, amount, record("reserve", answer), id));
		});
	}

	@Override
	public Optional<Reservation> reserve(String budgetId, long amount, Duration ttl, String operationId) {
		checkReservation(amount, ttl);
		Answer answer = record("reserve", call(new BudgetCommand(budgetId, "reserve", operationId, "reserve", amount,
				RandomIds.next(), ttl.toMillis() + "")));
		return reservation(budgetId, amount, answer, answer.reservationId());
	}

	@Override
	public CompletableFuture<Optional<Reservation>> reserveAsync(String budgetId, long amount, Duration ttl,
			String operationId) {
		return started(() -> {
			checkReservation(amount, ttl);
			return callAsync(new BudgetCommand(budgetId, "reserve", operationId, "reserve", amount, RandomIds.next(),
					ttl.toMillis() + ""))
				.thenApply(
						(answer) -> reservation(budgetId, amount, record("reserve", answer), answer.reservationId()));
		});
	}

	@Override
	public SpendResult commit(Reservation reservation, long actualAmount) {
		checkCommit(reservation, actualAmount);
		return record("commit", call(new BudgetCommand(reservation.budgetId(), "commit", reservation.id(), "commit",
				actualAmount, reservation.id(), "0")))
			.result();
	}

	@Override
	public CompletableFuture<SpendResult> commitAsync(Reservation reservation, long actualAmount) {
		return started(() -> {
			checkCommit(reservation, actualAmount);
			return callAsync(new BudgetCommand(reservation.budgetId(), "commit", reservation.id(), "commit",
					actualAmount, reservation.id(), "0"))
				.thenApply((answer) -> record("commit", answer).result());
		});
	}

	@Override
	public void release(Reservation reservation) {
		Assert.notNull(reservation, "Reservation must not be null");
		record("release",
				call(new BudgetCommand(reservation.budgetId(), null, null, "release", 0, reservation.id(), "0")));
	}

	@Override
	public CompletableFuture<Void> releaseAsync(Reservation reservation) {
		return started(() -> {
			Assert.notNull(reservation, "Reservation must not be null");
			return callAsync(new BudgetCommand(reservation.budgetId(), null, null, "release", 0, reservation.id(), "0"))
				.thenAccept((answer) -> record("release", answer));
		});
	}

	private static Optional<Reservation> reservation(String budgetId, long amount, Answer answer, String id) {
		return answer.applied() ? Optional.of(new Reservation(budgetId, id, amount)) : Optional.empty();
	}

	private Answer record(String operation, Answer answer) {
		this.metrics.increment(BudgetMeters.CHANGES, "operation", operation, "outcome",
				answer.replayed() ? "replayed" : answer.applied() ? "applied" : "refused");
		return answer;
	}

	private Answer call(BudgetCommand command) {
		Assert.hasText(command.budgetId(), "Budget id must not be empty");
		if ("remaining".equals(command.command())) {
			return apply(command);
		}
		// named by the command, never by the budget id (one per customer, order...)
		return this.observations.observe(BudgetObservationKind.APPLY, command.command(), () -> apply(command), APPLIED);
	}

	private CompletableFuture<Answer> callAsync(BudgetCommand command) {
		Assert.hasText(command.budgetId(), "Budget id must not be empty");
		if ("remaining".equals(command.command())) {
			return applyAsync(command);
		}
		return this.observations.observeAsync(BudgetObservationKind.APPLY, command.command(), () -> applyAsync(command),
				APPLIED);
	}

	private static String outcome(Answer answer) {
		return answer.replayed() ? "replayed" : answer.applied() ? "applied" : "refused";
	}

	/**
	 * The blocking face: waits for the one asynchronous call, at most the timeout.
	 */
	private Answer apply(BudgetCommand command) {
		List<?> reply;
		try {
			reply = RedisScriptRunner.await(send(command), this.timeout, APPLY.name());
		}
		catch (DataAccessException ex) {
			throw unavailable(command.command(), ex);
		}
		return answer(command, reply);
	}

	private CompletableFuture<Answer> applyAsync(BudgetCommand command) {
		// a timeout's follow-up runs on the runner's threads, not on the JDK's one timer
		return RedisScriptRunner.within(send(command), this.timeout).handle((reply, ex) -> {
			if (ex != null) {
				throw unavailable(command.command(), accessFailure(ex));
			}
			return answer(command, reply);
		});
	}

	private CompletableFuture<List> send(BudgetCommand command) {
		List<String> keys = keys(command.budgetId(), command.kind(), command.operationId());
		String operationId = command.operationId();
		if (command.command().equals("giveback") && operationId != null) {
			// the record of the batch's spend, under the same operation id
			keys.add(this.keyspace.key("budget").tag(command.budgetId()).part("op", "spend", operationId).build());
		}
		String recordTtl = command.generatedId() ? this.onceTtl : Long.toString(this.operationTtl.toMillis());
		return this.runner.executeAsync(command.givesBack() ? GIVE_BACK : APPLY, keys, command.command(),
				Long.toString(command.amount()), command.id(), command.reservationTtl(), recordTtl, MAX);
	}

	private DataAccessException unavailable(String command, DataAccessException ex) {
		this.metrics.increment(BudgetMeters.CHANGES, "operation", command, "outcome", "unavailable");
		return ex;
	}

	private DataAccessException accessFailure(Throwable failure) {
		Throwable ex = unwrap(failure);
		if (ex instanceof DataAccessException dataAccess) {
			return dataAccess;
		}
		if (ex instanceof TimeoutException) {
			return new QueryTimeoutException(
					"Redis did not answer " + APPLY.name() + " within " + this.timeout.toMillis() + " ms", ex);
		}
		return new RedisSystemException("Redis call " + APPLY.name() + " failed", ex);
	}

	private static Answer answer(BudgetCommand command, List<?> reply) {
		long applied = (Long) reply.get(0);
		long remaining = (Long) reply.get(1);
		if (applied == -1) {
			throw new BudgetNotFoundException(command.budgetId());
		}
		if (applied == -2) {
			throw new BudgetOverflowException(command.budgetId(), command.amount(), remaining);
		}
		String reservationId = (reply.size() > 3) ? (String) reply.get(3) : "";
		// under a generated id, a replay answers the one application the caller never
		// saw: it is that call's outcome, not a retry's
		boolean replayed = (Long) reply.get(2) == 1 && !command.generatedId();
		return new Answer(new SpendResult(applied == 1, remaining), replayed, reservationId);
	}

	private static Throwable unwrap(Throwable ex) {
		return (ex instanceof CompletionException && ex.getCause() != null) ? ex.getCause() : ex;
	}

	/**
	 * Starts an asynchronous call whose checks may throw: a refused argument becomes the
	 * answer's failure, never the caller's.
	 */
	private static <T> CompletableFuture<T> started(Supplier<CompletableFuture<T>> call) {
		try {
			return call.get();
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	private static void checkReservation(long amount, @Nullable Duration ttl) {
		checkAmount(amount, false);
		Assert.isTrue(ttl != null && ttl.toMillis() > 0, "A reservation needs a positive ttl");
	}

	private static void checkCommit(Reservation reservation, long actualAmount) {
		Assert.notNull(reservation, "Reservation must not be null");
		Assert.isTrue(actualAmount >= 0 && actualAmount <= reservation.amount(), () -> "Committed amount "
				+ actualAmount + " must be between 0 and the reserved " + reservation.amount());
	}

	private List<String> keys(String budgetId, @Nullable String kind, @Nullable String operationId) {
		RedisKeyspace.Key budget = this.keyspace.key("budget").tag(budgetId);
		List<String> keys = new ArrayList<>(4);
		keys.add(budget.part("balance").build());
		keys.add(budget.part("reservations").build());
		keys.add(budget.part("deadlines").build());
		if (kind != null) {
			Assert.hasText(operationId, "Operation id must not be empty");
			keys.add(budget.part("op", kind, operationId).build());
		}
		return keys;
	}

	private static void checkAmount(long amount, boolean zeroAllowed) {
		Assert.isTrue(amount > 0 || (zeroAllowed && amount == 0),
				() -> "Amount " + amount + " must be " + (zeroAllowed ? ">= 0" : "> 0"));
		Assert.isTrue(amount <= MAX_AMOUNT, () -> "Amount " + amount + " exceeds " + MAX_AMOUNT);
	}

	private record Answer(SpendResult result, boolean replayed, String reservationId) {

		boolean applied() {
			return this.result.applied();
		}

	}

}
