package io.github.redkit.sample.ads;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import io.github.redkit.budget.Budgets;
import io.github.redkit.lock.DistributedLock;
import io.github.redkit.lock.DistributedLocks;
import io.github.redkit.lock.LockHandle;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.stereotype.Service;

/**
 * Campaign settlement: records each campaign's balance for billing. Every instance
 * schedules it; the lock lets one run at a time, and the fencing token is stored with the
 * result so a late writer can be told from the current one.
 */
@Service
public class Settlement {

	private final Campaigns campaigns;

	private final Budgets budgets;

	private final StringRedisTemplate redis;

	public Settlement(Campaigns campaigns, Budgets budgets, StringRedisTemplate redis) {
		this.campaigns = campaigns;
		this.budgets = budgets;
		this.redis = redis;
	}

	@DistributedLock(key = "'campaign-settlement'")
	public Map<String, Object> settle() {
		long fence = DistributedLocks.current().map(LockHandle::fencingToken).orElse(-1L);
		long now = System.currentTimeMillis();
		Map<String, Object> settled = new LinkedHashMap<>();
		for (String id : this.campaigns.all()) {
			long remaining = this.budgets.remaining(id);
			String key = "ads:settlement:" + id;
			this.redis.opsForHash()
				.putAll(key, Map.of("remaining", Long.toString(remaining), "settledAt", Long.toString(now), "fence",
						Long.toString(fence)));
			this.redis.expire(key, Duration.ofDays(7));
			settled.put(id, remaining);
		}
		return Map.of("fencingToken", fence, "campaigns", settled);
	}

}
