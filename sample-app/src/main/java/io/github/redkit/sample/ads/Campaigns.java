package io.github.redkit.sample.ads;

import java.util.Map;
import java.util.Set;
import java.util.UUID;

import io.github.redkit.budget.Budgets;
import io.github.redkit.budget.SpendResult;
import io.github.redkit.sample.web.ApiException;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Service;

/**
 * Ad campaigns (seed 004): each one a Redkit budget in minor units, listed in the
 * {@code ads:campaigns} set for the settlement job.
 */
@Service
public class Campaigns {

	static final String CAMPAIGNS = "ads:campaigns";

	private final Budgets budgets;

	private final StringRedisTemplate redis;

	public Campaigns(Budgets budgets, StringRedisTemplate redis) {
		this.budgets = budgets;
		this.redis = redis;
	}

	public void create(String id, long amount) {
		if (!this.budgets.create(id, amount)) {
			throw new ApiException(HttpStatus.CONFLICT, "Campaign '" + id + "' exists");
		}
		this.redis.opsForSet().add(CAMPAIGNS, id);
	}

	public long remaining(String id) {
		if (!exists(id)) {
			throw ApiException.notFound("No campaign '" + id + "'");
		}
		return this.budgets.remaining(id);
	}

	/**
	 * Credits a campaign with a payment: a refund to its budget under the payment's own
	 * id, so that the budget counts each payment once.
	 * @param id the campaign
	 * @param amount the amount paid, in minor units
	 * @return the payment's id and the campaign's remaining budget
	 */
	public Map<String, Object> pay(String id, long amount) {
		if (!exists(id)) {
			throw ApiException.notFound("No campaign '" + id + "'");
		}
		String payment = UUID.randomUUID().toString();
		SpendResult result = this.budgets.refund(id, amount, "payment:" + payment);
		return Map.of("payment", payment, "campaign", id, "amount", amount, "remaining", result.remaining());
	}

	public boolean exists(String id) {
		return Boolean.TRUE.equals(this.redis.opsForSet().isMember(CAMPAIGNS, id));
	}

	public Set<String> all() {
		Set<String> ids = this.redis.opsForSet().members(CAMPAIGNS);
		return (ids != null) ? ids : Set.of();
	}

}
