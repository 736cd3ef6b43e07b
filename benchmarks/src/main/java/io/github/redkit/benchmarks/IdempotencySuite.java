package io.github.redkit.benchmarks;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;

import io.github.redkit.budget.Budgets;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.internal.LuaScript;
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

	static Suite budgets() {
		return new Suite("budget spend", List.of(RawSpend::new, RedkitSpend::new));
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

	static final class RawSpend implements Contender {

		private final RedisScript<List> apply = script("budget_apply", List.class);

		private final ConfigurableApplicationContext context;

		private final StringRedisTemplate template;

		private final List<String> keys;

		RawSpend(RedisServer redis) {
			this.context = Clients.springContext(redis);
			this.template = this.context.getBean(StringRedisTemplate.class);
			RedisKeyspace.Key budget = new RedisKeyspace("bench").key("budget").tag("raw:" + UUID.randomUUID());
			this.keys = List.of(budget.part("balance").build(), budget.part("reservations").build(),
					budget.part("deadlines").build());
			this.template.execute(this.apply, this.keys, "create", Long.toString(Budgets.MAX_AMOUNT), "0", "0", "0",
					Long.toString(Budgets.MAX_AMOUNT));
		}

		@Override
		public String name() {
			return "Spring Data Redis: raw EVALSHA budget_apply";
		}

		@Override
		public void operate(int thread, long iteration) {
			this.template.execute(this.apply, this.keys, "spend", "1", "", "0", "0", Long.toString(Budgets.MAX_AMOUNT));
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
			return "Redkit Budgets.spend";
		}

		@Override
		public void operate(int thread, long iteration) {
			this.budgets.spend(this.budget, 1);
		}

		@Override
		public void close() {
			this.context.close();
		}

	}

}
