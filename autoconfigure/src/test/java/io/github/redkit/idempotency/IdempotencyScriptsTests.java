package io.github.redkit.idempotency;

import java.util.List;
import java.util.UUID;

import io.github.redkit.budget.Budgets;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.internal.LuaScript;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.testsupport.Exercises;
import io.github.redkit.testsupport.RedisTopologies;
import io.github.redkit.testsupport.RedisTopology;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The scripts of idempotent steps and budgets called directly, with raw arguments.
 */
@ParameterizedClass
@RedisTopologies(exercises = Exercises.SCRIPTS)
class IdempotencyScriptsTests {

	private static final LuaScript<List> CLAIM = LuaScript.load("idempotency_claim", List.class);

	private static final LuaScript<Long> COMPLETE = LuaScript.load("idempotency_complete", Long.class);

	private static final LuaScript<Long> EXTEND = LuaScript.load("idempotency_extend", Long.class);

	private static final LuaScript<Long> ABANDON = LuaScript.load("idempotency_abandon", Long.class);

	private static final LuaScript<List> READ = LuaScript.load("idempotency_read", List.class);

	private static final LuaScript<List> BUDGET = LuaScript.load("budget_apply", List.class);

	@Parameter
	RedisTopology topology;

	private RedisScriptRunner runner;

	private List<String> steps;

	private List<String> budget;

	@BeforeEach
	void setUp() {
		this.runner = new RedisScriptRunner(this.topology.connectionFactory());
		RedisKeyspace.Key operation = new RedisKeyspace("redkit-test").key("scripts").tag(UUID.randomUUID().toString());
		this.steps = List.of(operation.part("state").build(), operation.part("results").build());
		this.budget = List.of(operation.part("balance").build(), operation.part("reservations").build(),
				operation.part("deadlines").build(), operation.part("op").build());
	}

	@Test
	void claimCompleteAbandonAndRead() {
		assertThat(claim("bid")).containsExactly("CLAIMED", null, List.of(), List.of());
		assertThat(this.runner.template().opsForHash().get(this.steps.get(0), "bid").toString()).startsWith("p|");
		assertThat(this.runner.execute(COMPLETE, this.steps, "bid", "{\"a\":1}", "60000", "")).isEqualTo(1);
		assertThat(this.runner.execute(COMPLETE, this.steps, "bid", "{\"a\":2}", "60000", "")).isZero();
		assertThat(claim("bid")).containsExactly("DUPLICATE", "{\"a\":1}", List.of(), List.of());
		assertThat(claim("notice", "bid").get(0)).isEqualTo("CLAIMED");
		// a claim is renewed and completed only by its own token (claim() uses "t")
		assertThat(this.runner.execute(EXTEND, this.steps.subList(0, 1), "notice", "other", "30000")).isZero();
		assertThat(this.runner.execute(EXTEND, this.steps.subList(0, 1), "notice", "t", "30000")).isEqualTo(1);
		assertThat(this.runner.execute(COMPLETE, this.steps, "notice", "{}", "60000", "", "other")).isEqualTo(-1);
		assertThat(this.runner.execute(COMPLETE, this.steps, "bid", "{}", "60000", "", "t")).as("done by another")
			.isEqualTo(-1);
		assertThat(claim("timeout", "bid")).containsExactly("IN_PROGRESS", null, List.of("bid"), List.of("notice"));
		assertThat(this.runner.execute(ABANDON, this.steps.subList(0, 1), "notice", "wrong-token")).isZero();
		assertThat(this.runner.execute(ABANDON, this.steps.subList(0, 1), "notice", "t")).isEqualTo(1);
		assertThat(claim("timeout", "bid").get(0)).isEqualTo("CLAIMED");
		assertThat(this.runner.execute(READ, this.steps, "bid")).containsExactly(List.of("bid"), "{\"a\":1}");
		assertThat(this.runner.template().getExpire(this.steps.get(1))).isBetween(50L, 60L);
	}

	@Test
	void aClaimDeliveredTwiceIsGrantedAgainAndAnotherClaimIsStillRefused() {
		// the first reply was lost and the client sent the same call again (a reconnect
		// replays what was not answered): the step is held by this very claim
		assertThat(this.runner.execute(CLAIM, this.steps, "ship", "60000", "30000", "t1", "").get(0))
			.isEqualTo("CLAIMED");
		assertThat(this.runner.execute(CLAIM, this.steps, "ship", "60000", "30000", "t1", "").get(0))
			.isEqualTo("CLAIMED");
		assertThat(this.runner.execute(CLAIM, this.steps, "ship", "60000", "30000", "t2", "").get(0))
			.isEqualTo("IN_PROGRESS");
	}

	@Test
	void aRetriedCompletionFindsItsOwnClaimsRecordAndAnotherClaimIsStillRefused() {
		assertThat(this.runner.execute(CLAIM, this.steps, "pay", "60000", "30000", "t", "print")).first()
			.isEqualTo("CLAIMED");
		assertThat(this.runner.execute(COMPLETE, this.steps, "pay", "{\"a\":1}", "60000", "", "t")).isEqualTo(1);
		// Redis applied it but the answer was lost: the caller sends it again
		assertThat(this.runner.execute(COMPLETE, this.steps, "pay", "{\"a\":1}", "60000", "", "t")).isZero();
		assertThat(this.runner.execute(COMPLETE, this.steps, "pay", "{\"a\":2}", "60000", "", "other")).isEqualTo(-1);
		assertThat(this.runner.execute(CLAIM, this.steps, "pay", "60000", "30000", "u", "print"))
			.containsExactly("DUPLICATE", "{\"a\":1}", List.of(), List.of());
		assertThat(this.runner.execute(CLAIM, this.steps, "pay", "60000", "30000", "u", "other print")).first()
			.isEqualTo("REUSED");
		assertThat(this.runner.execute(READ, this.steps, "pay")).containsExactly(List.of("pay"), "{\"a\":1}");
	}

	private List<Object> claim(String step, String... after) {
		String[] args = new String[5 + after.length];
		args[0] = step;
		args[1] = "60000";
		args[2] = "30000";
		args[3] = "t";
		args[4] = "";
		System.arraycopy(after, 0, args, 5, after.length);
		@SuppressWarnings("unchecked")
		List<Object> reply = this.runner.execute(CLAIM, this.steps, args);
		return reply;
	}

	@Test
	void budgetCommandsCheckBeforeTheyChange() {
		List<String> keys = this.budget.subList(0, 3);
		// ARGV: command, amount, reservation id, reservation ttl, record ttl, largest
		// amount
		String max = Long.toString(Budgets.MAX_AMOUNT);
		assertThat(this.runner.execute(BUDGET, keys, "spend", "1", "", "0", "0", max)).containsExactly(-1L, 0L, 0L);
		assertThat(this.runner.execute(BUDGET, keys, "create", "100", "0", "0", "0", max)).containsExactly(1L, 100L,
				0L);
		assertThat(this.runner.execute(BUDGET, keys, "create", "5", "0", "0", "0", max)).containsExactly(0L, 100L, 0L);
		assertThat(this.runner.execute(BUDGET, keys, "spend", "101", "", "0", "0", max)).containsExactly(0L, 100L, 0L,
				"");
		assertThat(this.runner.execute(BUDGET, this.budget, "spend", "40", "", "0", "60000", max)).containsExactly(1L,
				60L, 0L, "");
		assertThat(this.runner.execute(BUDGET, this.budget, "spend", "40", "", "0", "60000", max)).containsExactly(1L,
				60L, 1L, "");
		assertThat(this.runner.execute(BUDGET, keys, "reserve", "50", "r1", "60000", "0", max)).containsExactly(1L, 10L,
				0L, "r1");
		assertThat(this.runner.execute(BUDGET, keys, "reserve", "11", "r2", "60000", "0", max)).containsExactly(0L, 10L,
				0L, "");
		assertThat(this.runner.execute(BUDGET, keys, "release", "0", "r1", "0", "0", max)).containsExactly(1L, 60L, 0L,
				"");
		assertThat(this.runner.execute(BUDGET, keys, "release", "0", "r1", "0", "0", max)).containsExactly(0L, 60L, 0L);
		assertThat(this.runner.execute(BUDGET, keys, "refund", "10", "", "0", "0", "65")).as("past the largest amount")
			.containsExactly(-2L, 60L, 0L);
		assertThat(this.runner.template().getExpire(this.budget.get(3))).isBetween(50L, 60L);
		assertThat(this.runner.template().hasKey(this.budget.get(1))).isFalse();
	}

}
