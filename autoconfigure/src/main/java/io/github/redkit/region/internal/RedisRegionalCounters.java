package io.github.redkit.region.internal;

import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;

import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.internal.LuaScript;
import io.github.redkit.core.internal.RandomIds;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.core.internal.ReplayWindow;
import io.github.redkit.region.RegionalCounters;

import org.springframework.util.Assert;

/**
 * {@link RegionalCounters} on the local Redis: an increment is one
 * {@code region_counter_increment} script that adds to this region's slot of the counter
 * and appends the slot's new state to the outbox that {@link RegionReplicator}s ship.
 */
public class RedisRegionalCounters implements RegionalCounters {

	private static final LuaScript<List> INCREMENT = LuaScript.load("region_counter_increment", List.class);

	private static final LuaScript<Long> GET = LuaScript.load("region_counter_get", Long.class);

	/**
	 * The counters of a global rate limit: {@code rl.}, a SHA-256 in Base64url, then the
	 * window and sub-window (see {@code GlobalRateLimitDecider.counterName}).
	 */
	private static final Pattern GLOBAL_RATE_LIMIT = Pattern.compile("rl\\.[A-Za-z0-9_-]{43}\\.");

	/**
	 * The longest an increment's generated operation id is kept, whatever the timeouts:
	 * as long as a regional budget's operation ids by default.
	 */
	private static final Duration MAX_WINDOW = Duration.ofHours(24);

	/**
	 * How the operation key of an increment's generated id starts (a regional budget's
	 * start with the operation's name).
	 */
	static final String ONCE = "once ";

	private final RedisScriptRunner runner;

	private final RegionShards shards;

	private final String region;

	private final String outboxMaxLength;

	private final Duration timeout;

	private volatile String onceTtl;

	/**
	 * Creates counters.
	 * @param runner runs scripts on the local Redis
	 * @param keyspace builds the keys
	 * @param region this region's name
	 * @param outboxMaxLength the outbox bound (approximate, {@code MAXLEN ~})
	 * @param timeout the longest wait for the local Redis
	 */
	public RedisRegionalCounters(RedisScriptRunner runner, RedisKeyspace keyspace, String region, long outboxMaxLength,
			Duration timeout) {
		this(runner, keyspace, region, outboxMaxLength, 1, timeout);
	}

	/**
	 * Creates counters over several shards (see {@code redkit.regions.outbox.shards}).
	 * @param runner runs scripts on the local Redis
	 * @param keyspace builds the keys
	 * @param region this region's name
	 * @param outboxMaxLength the bound of each shard's outbox (approximate,
	 * {@code MAXLEN ~})
	 * @param shards how many shards the regional state is spread over
	 * @param timeout the longest wait for the local Redis
	 */
	public RedisRegionalCounters(RedisScriptRunner runner, RedisKeyspace keyspace, String region, long outboxMaxLength,
			int shards, Duration timeout) {
		Assert.hasText(region, "Region must not be empty");
		Assert.isTrue(outboxMaxLength > 0, "Outbox max length must be positive");
		this.runner = runner;
		this.shards = new RegionShards(keyspace, shards);
		this.region = region;
		this.outboxMaxLength = Long.toString(outboxMaxLength);
		this.timeout = timeout;
		this.onceTtl = Long
			.toString(ReplayWindow.of(ReplayWindow.DEFAULT_COMMAND_TIMEOUT, timeout, MAX_WINDOW).toMillis());
	}

	/**
	 * Sets the connection's command timeout ({@link ReplayWindow#DEFAULT_COMMAND_TIMEOUT}
	 * unless set): Lettuce sends a command again after a reconnect until then, so the
	 * operation id generated for each increment is kept for the {@link ReplayWindow}.
	 * @param commandTimeout the connection's command timeout
	 */
	public void setCommandTimeout(Duration commandTimeout) {
		Assert.isTrue(commandTimeout != null && commandTimeout.toMillis() > 0, "commandTimeout must be positive");
		this.onceTtl = Long.toString(ReplayWindow.of(commandTimeout, this.timeout, MAX_WINDOW).toMillis());
	}

	@Override
	public long increment(String name, long delta) {
		checkName(name);
		// its negation must exist: a subtraction is stored as a positive amount
		Assert.isTrue(delta != Long.MIN_VALUE, "Delta must be greater than Long.MIN_VALUE");
		RegionKeys keys = this.shards.of(name);
		// an id per call: Lettuce may send the increment again after a reconnect (issue
		// 43)
		String operation = keys.operation(name, ONCE + RandomIds.next());
		List<?> reply = this.runner.execute(INCREMENT, this.timeout,
				List.of(keys.counter(name), keys.sequence(), keys.outbox(), operation), this.region,
				Long.toString(delta), this.outboxMaxLength, name, this.onceTtl);
		return (Long) reply.get(0);
	}

	@Override
	public long get(String name) {
		checkName(name);
		return this.runner.execute(GET, this.timeout, List.of(this.shards.of(name).counter(name)));
	}

	/**
	 * Refuses the names that regional budgets and global rate limits give their counters
	 * in the same key space, so that a counter never changes one of them.
	 */
	private static void checkName(String name) {
		Assert.hasText(name, "Counter name must not be empty");
		Assert.isTrue(!RedisRegionalBudgets.isBudgetCounter(name) && !GLOBAL_RATE_LIMIT.matcher(name).lookingAt(),
				() -> "Counter name '" + name + "' is reserved: names starting with 'budget:', 'allotted:' or"
						+ " 'allotted-to:' hold regional budgets, and 'rl.<digest>.' global rate limits");
	}

}
