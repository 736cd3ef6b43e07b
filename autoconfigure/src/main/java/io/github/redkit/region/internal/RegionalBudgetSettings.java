package io.github.redkit.region.internal;

import java.time.Duration;

import org.springframework.util.Assert;

/**
 * How {@link RedisRegionalBudgets} keeps its regional state: the outbox bound, the
 * shards, how long an operation id is remembered, and the longest wait for a Redis.
 *
 * @param outboxMaxLength the bound of each shard's outbox (approximate, {@code MAXLEN ~})
 * @param shards how many shards the regional state is spread over (see
 * {@code redkit.regions.outbox.shards})
 * @param operationTtl how long an operation id is remembered
 * @param timeout the longest wait for a Redis
 */
public record RegionalBudgetSettings(long outboxMaxLength, int shards, Duration operationTtl, Duration timeout) {

	public RegionalBudgetSettings {
		Assert.isTrue(outboxMaxLength > 0, "Outbox max length must be positive");
		Assert.isTrue(operationTtl.toMillis() > 0, "Operation TTL must be at least a millisecond");
	}

}
