package io.github.redkit.region;

import java.time.Duration;
import java.util.List;

import io.github.redkit.core.LuaScript;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedisScriptRunner;

import org.springframework.util.Assert;

/**
 * {@link RegionalBudgets} on the local Redis: each change is one
 * {@code region_budget_change} script on the budget's regional counter
 * ({@code budget:<name>}: what was granted in its {@code p} slots, what was spent in its
 * {@code n} slots), queued in the same outbox as {@link RegionalCounters} increments.
 */
public class RedisRegionalBudgets implements RegionalBudgets {

	private static final LuaScript<List> CHANGE = LuaScript.load("region_budget_change", List.class);

	private static final LuaScript<Long> GET = LuaScript.load("region_counter_get", Long.class);

	private final RedisScriptRunner runner;

	private final RegionKeys keys;

	private final String region;

	private final String outboxMaxLength;

	private final String operationTtl;

	private final Duration timeout;

	/**
	 * Creates budgets.
	 * @param runner runs scripts on the local Redis
	 * @param keyspace builds the keys
	 * @param region this region's name
	 * @param outboxMaxLength the outbox bound (approximate, {@code MAXLEN ~})
	 * @param operationTtl how long an operation id is remembered
	 * @param timeout the longest wait for the local Redis
	 */
	public RedisRegionalBudgets(RedisScriptRunner runner, RedisKeyspace keyspace, String region, long outboxMaxLength,
			Duration operationTtl, Duration timeout) {
		Assert.hasText(region, "Region must not be empty");
		Assert.isTrue(outboxMaxLength > 0, "Outbox max length must be positive");
		Assert.isTrue(operationTtl.toMillis() > 0, "Operation TTL must be at least a millisecond");
		this.runner = runner;
		this.keys = new RegionKeys(keyspace);
		this.region = region;
		this.outboxMaxLength = Long.toString(outboxMaxLength);
		this.operationTtl = Long.toString(operationTtl.toMillis());
		this.timeout = timeout;
	}

	@Override
	public boolean create(String name, long amount) {
		// the creation's own id: a retried creation is answered as the first was
		return (Long) change("create", name, amount, "create").get(0) == 1;
	}

	@Override
	public long remaining(String name) {
		Assert.hasText(name, "Budget name must not be empty");
		return this.runner.execute(GET, this.timeout, List.of(this.keys.counter(counter(name))));
	}

	@Override
	public RegionalSpend spend(String name, long amount, String operationId) {
		Assert.hasText(operationId, "Operation id must not be empty");
		List<?> reply = change("spend", name, amount, "spend " + operationId);
		return new RegionalSpend((Long) reply.get(0) == 1, (Long) reply.get(1), (Long) reply.get(2) == 1);
	}

	@Override
	public long refund(String name, long amount, String operationId) {
		Assert.hasText(operationId, "Operation id must not be empty");
		return (Long) change("refund", name, amount, "refund " + operationId).get(1);
	}

	private List<?> change(String operation, String name, long amount, String operationKey) {
		Assert.hasText(name, "Budget name must not be empty");
		Assert.isTrue(amount > 0, () -> "Amount must be positive (was " + amount + ")");
		String counter = counter(name);
		return this.runner.execute(CHANGE, this.timeout,
				List.of(this.keys.counter(counter), this.keys.sequence(), this.keys.outbox(),
						this.keys.operation(counter, operationKey)),
				this.region, operation, Long.toString(amount), this.outboxMaxLength, counter, this.operationTtl);
	}

	/** The regional counter that holds a budget, apart from counters by its prefix. */
	static String counter(String name) {
		return "budget:" + name;
	}

}
