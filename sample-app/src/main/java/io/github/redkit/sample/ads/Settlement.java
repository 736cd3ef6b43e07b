package io.github.redkit.sample.ads;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.redkit.budget.BudgetNotFoundException;
import io.github.redkit.budget.Budgets;
import io.github.redkit.lock.DistributedLock;
import io.github.redkit.lock.DistributedLocks;
import io.github.redkit.lock.LockHandle;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.stereotype.Service;

/**
 * Campaign settlement: records each campaign's balance for billing. Every instance
 * schedules it; the lock lets one run at a time, and the fencing token is stored with the
 * result: a write with an older token than the stored one is refused.
 */
@Service
public class Settlement {

	/**
	 * Writes a record unless it already holds a newer token: a holder that stalled past
	 * its lease and resumes after another holder wrote cannot overwrite the newer record.
	 */
	private static final RedisScript<Long> RECORD = RedisScript.of("""
			local last = redis.call('HGET', KEYS[1], 'fence')
			if last and tonumber(ARGV[1]) < tonumber(last) then
			  return 0
			end
			redis.call('HSET', KEYS[1], 'fence', ARGV[1], 'remaining', ARGV[2], 'settledAt', ARGV[3])
			redis.call('EXPIRE', KEYS[1], ARGV[4])
			return 1
			""", Long.class);

	private static final Duration TTL = Duration.ofDays(7);

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
		return record(fence);
	}

	/**
	 * Records every campaign's balance under a fencing token.
	 * @param fence the token of the lock the caller holds (or held)
	 * @return the token, the balances recorded and the campaigns whose record was refused
	 */
	public Map<String, Object> record(long fence) {
		long now = System.currentTimeMillis();
		Map<String, Object> settled = new LinkedHashMap<>();
		List<String> refused = new ArrayList<>();
		List<String> withoutBudget = new ArrayList<>();
		for (String id : this.campaigns.all()) {
			long remaining;
			try {
				remaining = this.budgets.remaining(id);
			}
			catch (BudgetNotFoundException ex) {
				// a budget ends with its TTL while the campaign stays listed: nothing to
				// settle
				withoutBudget.add(id);
				continue;
			}
			String key = "ads:settlement:" + id;
			Long written = this.redis.execute(RECORD, List.of(key), Long.toString(fence), Long.toString(remaining),
					Long.toString(now), Long.toString(TTL.toSeconds()));
			if (written != null && written == 1) {
				settled.put(id, remaining);
			}
			else {
				refused.add(id);
			}
		}
		return Map.of("fencingToken", fence, "campaigns", settled, "refused", refused, "withoutBudget", withoutBudget);
	}

}
