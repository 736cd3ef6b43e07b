package io.github.redkit.ratelimit.internal;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.ratelimit.RateLimitDecider;
import io.github.redkit.ratelimit.RateLimitPolicy;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * The limits a rate limiter decides, prepared: the named ones (configured, or defined at
 * run time), the inline ones (prepared once per id, again only when their policy
 * changes), and the deciders of the named limits a layer above decides (several regions).
 */
final class RateLimitRegistry {

	private final RedisKeyspace keyspace;

	private final Map<String, PreparedLimit> limits = new ConcurrentHashMap<>();

	private final Map<String, PreparedLimit> inlineLimits = new ConcurrentHashMap<>();

	private final Map<String, RateLimitDecider> deciders = new ConcurrentHashMap<>();

	private final Map<String, LocalAllowance> allowances;

	/**
	 * Prepares the named limits.
	 * @param keyspace builds the keys
	 * @param policies the named limits
	 * @param allowances the local allowances of the named limits that have one
	 */
	RateLimitRegistry(RedisKeyspace keyspace, Map<String, RateLimitPolicy> policies,
			Map<String, LocalAllowance> allowances) {
		this.keyspace = keyspace;
		this.allowances = Map.copyOf(allowances);
		// at start-up, named limits or not: inline ones are prepared during calls
		PreparedLimit.loadScripts();
		policies.forEach((name, policy) -> this.limits.put(name, PreparedLimit.of(name, policy, keyspace)));
	}

	/**
	 * Lets deciders decide the named limits they name, each checked against the
	 * configured policy.
	 * @param deciders the deciders
	 * @param policies the named limits
	 * @throws IllegalArgumentException when a decider cannot decide a limit it names
	 */
	void decidedBy(List<RateLimitDecider> deciders, Map<String, RateLimitPolicy> policies) {
		for (RateLimitDecider decider : deciders) {
			for (String name : decider.limitNames()) {
				decider.check(name, policies.get(name));
				this.deciders.put(name, decider);
			}
		}
	}

	/**
	 * A named limit.
	 * @param limitName its name
	 * @return the limit
	 * @throws IllegalArgumentException when there is none of that name
	 */
	PreparedLimit named(String limitName) {
		PreparedLimit limit = this.limits.get(limitName);
		if (limit == null) {
			throw new IllegalArgumentException("No rate limit named '" + limitName
					+ "': configure it under redkit.rate-limit.limits or define it; known limits: "
					+ this.limits.keySet());
		}
		return limit;
	}

	/**
	 * An inline limit: prepared once per id, again only when its policy or name changes.
	 * @param limitName its name, as metrics and messages show it
	 * @param limitId the name its keys are built from
	 * @param policy its policy
	 * @return the limit
	 */
	PreparedLimit inline(String limitName, String limitId, RateLimitPolicy policy) {
		Assert.hasText(limitName, "A rate limit needs a name");
		Assert.hasText(limitId, "A rate limit needs an id");
		// inline policies (@RateLimited(limit = ..., period = ...)) come with every call:
		// prepared once per id, again only when the policy changes
		PreparedLimit limit = this.inlineLimits.get(limitId);
		if (limit == null || (limit.policy() != policy && !limit.policy().equals(policy))
				|| !limit.name().equals(limitName)) {
			limit = PreparedLimit.of(limitName, limitId, policy, this.keyspace);
			this.inlineLimits.put(limitId, limit);
		}
		return limit;
	}

	/**
	 * The decider of a limit, when a layer above decides it: only the named limit as it
	 * is defined now (an inline limit of the same name is decided by the scripts).
	 * @param limit the limit
	 * @return its decider, or {@code null} when the scripts decide it
	 */
	@Nullable RateLimitDecider decider(PreparedLimit limit) {
		RateLimitDecider decider = this.deciders.get(limit.name());
		return (decider != null && this.limits.get(limit.name()) == limit) ? decider : null;
	}

	/**
	 * The decider of a named limit.
	 * @param limitName the limit's name
	 * @return its decider, or {@code null} when the scripts decide it
	 */
	@Nullable RateLimitDecider decider(String limitName) {
		return this.deciders.get(limitName);
	}

	/**
	 * The local allowance of a named limit for a call of these identifiers.
	 * @param limitName the limit
	 * @param keys the call's identifiers: an allowance serves calls of one
	 * @return the allowance, or {@code null} when the call goes to Redis itself
	 */
	@Nullable LocalAllowance allowance(String limitName, List<String> keys) {
		return (keys.size() == 1 && !this.allowances.isEmpty()) ? this.allowances.get(limitName) : null;
	}

	/**
	 * Defines (or defines again) a named limit, checked as start-up checks the configured
	 * ones.
	 * @param limitName the limit's name
	 * @param policy its policy
	 * @return whether the limit has a local allowance, whose batches were counted under
	 * the previous policy
	 * @throws IllegalArgumentException when its decider or its allowance cannot serve it
	 */
	boolean define(String limitName, RateLimitPolicy policy) {
		PreparedLimit limit = PreparedLimit.of(limitName, policy, this.keyspace);
		RateLimitDecider decider = this.deciders.get(limitName);
		if (decider != null) {
			decider.check(limitName, policy);
		}
		LocalAllowance allowance = this.allowances.get(limitName);
		if (allowance != null) {
			// a batch must not overrun a window it was not counted in
			allowance.check("Rate limit '" + limitName + "': its local allowance (redkit.rate-limit.limits." + limitName
					+ ".local-allowance)", policy, decider != null);
		}
		this.limits.put(limitName, limit);
		return allowance != null;
	}

	/**
	 * The policy of a named limit.
	 * @param limitName the limit's name
	 * @return its policy, empty when there is no such limit
	 */
	Optional<RateLimitPolicy> policy(String limitName) {
		return Optional.ofNullable(this.limits.get(limitName)).map(PreparedLimit::policy);
	}

	/**
	 * The inline limits prepared so far, by id.
	 * @return a read-only view
	 */
	Map<String, PreparedLimit> inlineLimits() {
		return Collections.unmodifiableMap(this.inlineLimits);
	}

}
