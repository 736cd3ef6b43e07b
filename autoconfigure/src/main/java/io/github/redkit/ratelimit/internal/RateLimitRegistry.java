package io.github.redkit.ratelimit.internal;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.ratelimit.RateLimitDecider;
import io.github.redkit.ratelimit.RateLimitPolicy;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * The limits a rate limiter decides, prepared: the named ones (configured, or defined at
 * run time), the inline ones (prepared once per id, again only when their policy
 * changes), and the deciders of the named limits a layer above decides (several regions).
 * Each is kept as an {@link Entry} that a caller may look up once and hold: a named limit
 * defined again is seen through it at once.
 */
final class RateLimitRegistry {

	private final RedisKeyspace keyspace;

	private final Map<String, Entry> limits = new ConcurrentHashMap<>();

	private final Map<String, Entry> inlineLimits = new ConcurrentHashMap<>();

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
		policies.forEach((name, policy) -> this.limits.put(name, new Entry(
				new AtomicReference<>(PreparedLimit.of(name, policy, keyspace)), null, allowances.get(name))));
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
				this.limits.computeIfPresent(name,
						(limitName, entry) -> new Entry(entry.current(), decider, entry.allowance()));
			}
		}
	}

	/**
	 * A named limit.
	 * @param limitName its name
	 * @return the limit's entry, which sees it defined again
	 * @throws IllegalArgumentException when there is none of that name
	 */
	Entry named(String limitName) {
		Entry limit = this.limits.get(limitName);
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
	 * @return the limit's entry, without a decider or a local allowance (the scripts
	 * decide an inline limit, even one named as a named limit)
	 */
	Entry inline(String limitName, String limitId, RateLimitPolicy policy) {
		Assert.hasText(limitName, "A rate limit needs a name");
		Assert.hasText(limitId, "A rate limit needs an id");
		// inline policies (@RateLimited(limit = ..., period = ...)) come with every call:
		// prepared once per id, again only when the policy changes
		Entry entry = this.inlineLimits.get(limitId);
		PreparedLimit limit = (entry != null) ? entry.current().get() : null;
		if (entry == null || limit == null || (limit.policy() != policy && !limit.policy().equals(policy))
				|| !limit.name().equals(limitName)) {
			entry = new Entry(new AtomicReference<>(PreparedLimit.of(limitName, limitId, policy, this.keyspace)), null,
					null);
			this.inlineLimits.put(limitId, entry);
		}
		return entry;
	}

	/**
	 * The decider of a limit, when a layer above decides it: only the named limit as it
	 * is defined now (an inline limit of the same name is decided by the scripts).
	 * @param limit the limit
	 * @return its decider, or {@code null} when the scripts decide it
	 */
	@Nullable RateLimitDecider decider(PreparedLimit limit) {
		Entry entry = this.limits.get(limit.name());
		return (entry != null && entry.current().get() == limit) ? entry.decider() : null;
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
		Entry entry = this.limits.computeIfAbsent(limitName,
				(name) -> new Entry(new AtomicReference<>(limit), decider, allowance));
		// whoever holds the entry decides on the new definition from the next call
		entry.current().set(limit);
		return allowance != null;
	}

	/**
	 * The policy of a named limit.
	 * @param limitName the limit's name
	 * @return its policy, empty when there is no such limit
	 */
	Optional<RateLimitPolicy> policy(String limitName) {
		return Optional.ofNullable(this.limits.get(limitName))
			.map((entry) -> Objects.requireNonNull(entry.current().get()).policy());
	}

	/**
	 * The inline limits prepared so far, by id.
	 * @return a copy
	 */
	Map<String, PreparedLimit> inlineLimits() {
		Map<String, PreparedLimit> limits = new LinkedHashMap<>();
		this.inlineLimits.forEach((id, entry) -> limits.put(id, Objects.requireNonNull(entry.current().get())));
		return Collections.unmodifiableMap(limits);
	}

	/**
	 * A limit as the registry keeps it, for a caller to look up once and hold: it reads
	 * {@code current} on each call, and needs no lookup for the decider or the local
	 * allowance.
	 *
	 * @param current the limit as prepared now: a named limit's is replaced when the
	 * limit is defined again, an inline limit's never
	 * @param decider decides the limit in place of its script (several regions),
	 * {@code null} when the script does
	 * @param allowance the limit's local allowance, {@code null} when it has none
	 */
	record Entry(AtomicReference<PreparedLimit> current, @Nullable RateLimitDecider decider,
			@Nullable LocalAllowance allowance) {

	}

}
