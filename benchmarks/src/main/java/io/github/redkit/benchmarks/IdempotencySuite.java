package io.github.redkit.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;

import io.github.redkit.budget.Budgets;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.internal.LuaScript;
import io.github.redkit.core.internal.RandomIds;
import io.github.redkit.idempotency.IdempotentSteps;
import io.github.redkit.idempotency.StepClaim;
import io.github.redkit.testsupport.RedisServer;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Idempotent steps (claim + complete of a new step: two script calls) and budget spends
 * (one script call), each against the same scripts sent raw with {@code EVALSHA} through
 * a {@link StringRedisTemplate}: what Redkit adds on top of the scripts themselves (JSON,
 * key building, bounded waits, metrics).
 */
final class IdempotencySuite {

	private static final String STEP = "step";

	private IdempotencySuite() {
	}

	static Suite steps() {
		return new Suite("idempotent step (claim + complete)", List.of(RawStep::new, RedkitStep::new));
	}

	/**
	 * Budget spends without and with an operation id, raw and through Redkit: a spend the
	 * caller gives no id generates one (issue 43), which costs the script a {@code GET}
	 * and a {@code SET PX} and Redis a record kept for the replay window.
	 * @return the suite
	 */
	static Suite budgets() {
		return new Suite("budget spend",
				List.of(RawSpend::new, RedkitSpend::new, RedkitSpendWithId::new, RawSpendWithId::new));
	}

	private static <T> RedisScript<T> script(String name, Class<T> type) {
		// the same source Redkit sends, its includes expanded
		return LuaScript.load(name, type).redisScript();
	}

	private static List<String> stepKeys(String run, int thread, long iteration) {
		RedisKeyspace.Key key = new RedisKeyspace("bench").key("idempotency").tag(run + ":" + thread + ":" + iteration);
		return List.of(key.part("state").build(), key.part("results").build());
	}

	static final class RawStep implements Contender {

		private final RedisScript<List> claim = script("idempotency_claim", List.class);

		private final RedisScript<Long> complete = script("idempotency_complete", Long.class);

		private final ConfigurableApplicationContext context;

		private final StringRedisTemplate template;

		private final String run = UUID.randomUUID().toString();

		RawStep(RedisServer redis) {
			this.context = Clients.springContext(redis);
			this.template = this.context.getBean(StringRedisTemplate.class);
		}

		@Override
		public String name() {
			return "Spring Data Redis: 2 raw EVALSHA (same scripts)";
		}

		@Override
		public void operate(int thread, long iteration) {
			List<String> keys = stepKeys(this.run, thread, iteration);
			this.template.execute(this.claim, keys, STEP, "60000", "30000", "token", "");
			this.template.execute(this.complete, keys, STEP, "{\"ok\":true}", "60000", "");
		}

		@Override
		public void close() {
			this.context.close();
		}

	}

	static final class RedkitStep implements Contender {

		private final ConfigurableApplicationContext context;

		private final IdempotentSteps steps;

		private final String run = UUID.randomUUID().toString();

		RedkitStep(RedisServer redis) {
			this.context = Clients.springContext(redis);
			this.steps = this.context.getBean(IdempotentSteps.class);
		}

		@Override
		public String name() {
			return "Redkit IdempotentSteps claim + complete";
		}

		@Override
		public void operate(int thread, long iteration) {
			StepClaim claim = this.steps.claim("bench:" + this.run + ":" + thread + ":" + iteration, STEP, Set.of(),
					Duration.ofMinutes(1), null, null);
			this.steps.complete(claim, Result.OK);
		}

		@Override
		public void close() {
			this.context.close();
		}

		record Result(boolean ok) {
			static final Result OK = new Result(true);

		}

	}

	static class RawSpend implements Contender {

		private final RedisScript<List> apply = script("budget_apply", List.class);

		private final ConfigurableApplicationContext context;

		private final StringRedisTemplate template;

		private final RedisKeyspace.Key budget;

		private final List<String> keys;

		RawSpend(RedisServer redis) {
			this.context = Clients.springContext(redis);
			this.template = this.context.getBean(StringRedisTemplate.class);
			// Redkit's own key names, so that a record's memory compares with Redkit's
			this.budget = new RedisKeyspace("redkit").key("budget").tag("redkit:" + UUID.randomUUID());
			this.keys = List.of(this.budget.part("balance").build(), this.budget.part("reservations").build(),
					this.budget.part("deadlines").build());
			this.template.execute(this.apply, this.keys, "create", Long.toString(Budgets.MAX_AMOUNT), "0", "0", "0",
					Long.toString(Budgets.MAX_AMOUNT));
		}

		@Override
		public String name() {
			return "Spring Data Redis: raw EVALSHA budget_apply, no operation id";
		}

		@Override
		public void operate(int thread, long iteration) {
			this.template.execute(this.apply, this.keys, "spend", "1", "", "0", "0", Long.toString(Budgets.MAX_AMOUNT));
		}

		final void spendOnce(String recordTtl) {
			// the record of a generated id as Redkit writes it (key, id, window)
			List<String> keys = new ArrayList<>(this.keys);
			keys.add(this.budget.part("op", "once", RandomIds.next()).build());
			this.template.execute(this.apply, keys, "spend", "1", "", "0", recordTtl,
					Long.toString(Budgets.MAX_AMOUNT));
		}

		@Override
		public void close() {
			this.context.close();
		}

	}

	static final class RedkitSpend implements Contender {

		private final ConfigurableApplicationContext context;

		private final Budgets budgets;

		private final String budget = "redkit:" + UUID.randomUUID();

		RedkitSpend(RedisServer redis) {
			this.context = Clients.springContext(redis);
			this.budgets = this.context.getBean(Budgets.class);
			this.budgets.create(this.budget, Budgets.MAX_AMOUNT);
		}

		@Override
		public String name() {
			return "Redkit Budgets.spend, generated operation id";
		}

		@Override
		public void operate(int thread, long iteration) {
			this.budgets.spend(this.budget, 1);
		}

		@Override
		public String keptRecords() {
			return "*:op:once:*";
		}

		@Override
		public void close() {
			this.context.close();
		}

	}

	static final class RedkitSpendWithId implements Contender {

		private final ConfigurableApplicationContext context;

		private final Budgets budgets;

		private final String budget = "redkit:" + UUID.randomUUID();

		RedkitSpendWithId(RedisServer redis) {
			this.context = Clients.springContext(redis);
			this.budgets = this.context.getBean(Budgets.class);
			this.budgets.create(this.budget, Budgets.MAX_AMOUNT);
		}

		@Override
		public String name() {
			return "Redkit Budgets.spend with the caller's operation id";
		}

		@Override
		public void operate(int thread, long iteration) {
			// as long as a generated id: only the record's kind and expiry differ
			this.budgets.spend(this.budget, 1, RandomIds.next());
		}

		@Override
		public String keptRecords() {
			return "*:op:spend:*";
		}

		@Override
		public void close() {
			this.context.close();
		}

	}

	static final class RawSpendWithId extends RawSpend {

		// what Redkit keeps a generated id for with Spring Boot's 60 s command timeout
		private static final String REPLAY_WINDOW = Long.toString(Duration.ofMinutes(2).toMillis());

		RawSpendWithId(RedisServer redis) {
			super(redis);
		}

		@Override
		public String name() {
			return "Spring Data Redis: raw EVALSHA budget_apply with an operation id";
		}

		@Override
		public void operate(int thread, long iteration) {
			spendOnce(REPLAY_WINDOW);
		}

		@Override
		public String keptRecords() {
			return "*:op:once:*";
		}

	}

}
