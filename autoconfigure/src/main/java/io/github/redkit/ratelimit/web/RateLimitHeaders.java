package io.github.redkit.ratelimit.web;

import java.util.List;
import java.util.function.BiConsumer;

import io.github.redkit.core.web.QuotaHeaders;
import io.github.redkit.ratelimit.RateLimitDecision;
import io.github.redkit.ratelimit.RateLimitPolicy;
import io.github.redkit.ratelimit.RateLimitWindow;
import org.jspecify.annotations.Nullable;

/**
 * Formats the {@code RateLimit-Policy} and {@code RateLimit} fields of the IETF draft
 * "RateLimit header fields for HTTP" (draft-ietf-httpapi-ratelimit-headers-11) as RFC
 * 9651 lists: one policy item per window, named {@code "<limit>-<period>"} (numbered,
 * {@code "<limit>-<period>-2"}, when two periods print the same), with its quota
 * {@code q}, window {@code w} in seconds and, when the limit has keys, the partition key
 * {@code pk}; and the service limit of the most restrictive window, with the quota units
 * {@code r} it has left and {@code t}, the seconds until it gives back at least one (left
 * out when it holds none). <pre>
 * RateLimit-Policy: "api-1s";q=10;w=1;pk=:3q2+7wAAAAAA:, "api-1m";q=120;w=60;pk=:3q2+7wAAAAAA:
 * RateLimit: "api-1s";r=0;t=1;pk=:3q2+7wAAAAAA:
 * </pre> The partition key is the first 9 bytes of the SHA-256 of the call's identifiers,
 * so that a client can tell its partitions apart without the identifiers being shown. The
 * field names and their structured-field encoding, which every limit shares, are
 * {@link QuotaHeaders}'. A decision made on this instance while Redis was away
 * ({@linkplain RateLimitDecision#local() local}) also carries {@value #DEGRADED}:
 * {@value #LOCAL}.
 */
public final class RateLimitHeaders {

	/**
	 * The field that marks an answer decided without Redis, on this instance only.
	 */
	public static final String DEGRADED = "Redkit-Degraded";

	/** The value of {@link #DEGRADED} for a decision of the local failure mode. */
	public static final String LOCAL = "local";

	private RateLimitHeaders() {
	}

	/**
	 * The {@code RateLimit-Policy} value of a limit without keys.
	 * @param limitName the limit
	 * @param policy its policy
	 * @return the field value
	 */
	public static String policy(String limitName, RateLimitPolicy policy) {
		return policy(limitName, policy, null);
	}

	/**
	 * The {@code RateLimit-Policy} value.
	 * @param limitName the limit
	 * @param policy its policy
	 * @param partitionKey the {@linkplain QuotaHeaders#partitionKey(List) partition key},
	 * or {@code null}
	 * @return the field value
	 */
	public static String policy(String limitName, RateLimitPolicy policy, @Nullable String partitionKey) {
		return RateLimitPolicyItems.of(limitName, policy).field(partitionKey);
	}

	/**
	 * The {@code RateLimit} value of a limit without keys.
	 * @param limitName the limit
	 * @param decision the decision
	 * @return the field value, or {@code null} when the decision does not know its window
	 * or its remaining permits
	 */
	public static @Nullable String state(String limitName, RateLimitDecision decision) {
		return state(limitName, decision, null);
	}

	/**
	 * The {@code RateLimit} value.
	 * @param limitName the limit
	 * @param decision the decision
	 * @param partitionKey the {@linkplain QuotaHeaders#partitionKey(List) partition key},
	 * or {@code null}
	 * @return the field value, or {@code null} when the decision does not know its window
	 * or its remaining permits
	 */
	public static @Nullable String state(String limitName, RateLimitDecision decision, @Nullable String partitionKey) {
		RateLimitWindow window = decision.window();
		if (window == null || decision.remaining() < 0) {
			return null;
		}
		RateLimitPolicy policy = decision.policy();
		String name = (policy != null) ? RateLimitPolicyItems.of(limitName, policy).quotedName(limitName, window)
				: item(limitName, window);
		long remaining = QuotaHeaders.integer(decision.remaining());
		// each form concatenated at once: the field's bytes are made once, where a
		// builder would make them twice
		if (decision.resetAfter().isZero()) {
			return (partitionKey != null) ? name + ";r=" + remaining + ";pk=" + partitionKey : name + ";r=" + remaining;
		}
		long reset = QuotaHeaders.integer(QuotaHeaders.seconds(decision.resetAfter()));
		return (partitionKey != null) ? name + ";r=" + remaining + ";t=" + reset + ";pk=" + partitionKey
				: name + ";r=" + remaining + ";t=" + reset;
	}

	/**
	 * Sets both fields of an allowed call, e.g. on a response that is not committed yet.
	 * @param limitName the limit
	 * @param policy its policy, or {@code null} when unknown (no
	 * {@code RateLimit-Policy})
	 * @param decision the decision
	 * @param keys the identifiers the call was counted under; empty when the limit has no
	 * keys
	 * @param header sets one field: its name, then its value
	 */
	public static void set(String limitName, @Nullable RateLimitPolicy policy, RateLimitDecision decision,
			List<String> keys, BiConsumer<String, String> header) {
		String partitionKey = QuotaHeaders.partitionKey(keys);
		if (policy != null) {
			header.accept(QuotaHeaders.POLICY, policy(limitName, policy, partitionKey));
		}
		String state = state(limitName, decision, partitionKey);
		if (state != null) {
			header.accept(QuotaHeaders.STATE, state);
		}
		degraded(decision, header);
	}

	/**
	 * Sets {@value #DEGRADED} when the decision was made without Redis, on this instance
	 * only.
	 * @param decision the decision
	 * @param header sets one field: its name, then its value
	 */
	public static void degraded(RateLimitDecision decision, BiConsumer<String, String> header) {
		if (decision.local()) {
			header.accept(DEGRADED, LOCAL);
		}
	}

	/**
	 * The names of the policies that refused a call, as the problem type's
	 * {@code violated-policies} member lists them.
	 * @param limitName the limit
	 * @param decision the refusal
	 * @return the policy names
	 */
	public static List<String> violatedPolicies(String limitName, RateLimitDecision decision) {
		RateLimitPolicy policy = decision.policy();
		if (policy == null) {
			return decision.exceeded().stream().map((window) -> policyName(limitName, window)).toList();
		}
		RateLimitPolicyItems items = RateLimitPolicyItems.of(limitName, policy);
		return decision.exceeded().stream().map((window) -> items.name(limitName, window)).toList();
	}

	private static String item(String limitName, RateLimitWindow window) {
		return QuotaHeaders.quoted(policyName(limitName, window));
	}

	/**
	 * The name of the policy item of one window, e.g. {@code posts-10s}, before the
	 * number a policy adds when two of its periods print the same.
	 * @param limitName the limit
	 * @param window the window
	 * @return the policy name
	 */
	public static String policyName(String limitName, RateLimitWindow window) {
		return RateLimitPolicyItems.policyName(limitName, window);
	}

}
