package io.github.redkit.ratelimit.web;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

import io.github.redkit.core.web.QuotaHeaders;
import io.github.redkit.ratelimit.RateLimitPolicy;
import io.github.redkit.ratelimit.RateLimitWindow;
import org.jspecify.annotations.Nullable;

/**
 * The {@code RateLimit-Policy} items of one limit, formatted once: a limit's policy does
 * not change between requests, so every allowed request would otherwise format the same
 * strings again. Kept per limit name for the last {@value #POLICIES_PER_NAME} policies
 * seen under it (overloads of one method share a short name and keep their own inline
 * limits; a limit redefined at run time is formatted again), for at most
 * {@value #MOST_LIMITS} names: beyond them a policy is formatted for the call alone.
 */
final class RateLimitPolicyItems {

	/** The most limit names whose items are kept. */
	static final int MOST_LIMITS = 1024;

	/** The most policies kept under one limit name, the latest first. */
	static final int POLICIES_PER_NAME = 4;

	private static final ConcurrentMap<String, RateLimitPolicyItems[]> KEPT = new ConcurrentHashMap<>();

	private final RateLimitPolicy policy;

	// each window's policy name, e.g. api-1s, and quoted, e.g. "api-1s"
	private final String[] names;

	private final String[] quotedNames;

	// each window's item without a partition key, e.g. "api-1s";q=10;w=1
	private final String[] items;

	// the whole field without a partition key
	private final String field;

	private RateLimitPolicyItems(String limitName, RateLimitPolicy policy) {
		List<RateLimitWindow> windows = policy.windows();
		this.policy = policy;
		this.names = new String[windows.size()];
		this.quotedNames = new String[windows.size()];
		this.items = new String[windows.size()];
		for (int i = 0; i < windows.size(); i++) {
			RateLimitWindow window = windows.get(i);
			this.names[i] = uniqueName(policyName(limitName, window), i);
			this.quotedNames[i] = QuotaHeaders.quoted(this.names[i]);
			this.items[i] = this.quotedNames[i] + ";q=" + QuotaHeaders.integer(window.limit()) + ";w="
					+ QuotaHeaders.integer(QuotaHeaders.seconds(window.period()));
		}
		this.field = String.join(", ", this.items);
	}

	private RateLimitPolicyItems(RateLimitPolicyItems equal, RateLimitPolicy policy) {
		this.policy = policy;
		this.names = equal.names;
		this.quotedNames = equal.quotedNames;
		this.items = equal.items;
		this.field = equal.field;
	}

	// two windows whose periods print the same (1500 ms and 1500.4 ms, or one period
	// twice) would share an item name, which a client reads as one policy: the later
	// ones are numbered, e.g. api-1500ms-2
	private String uniqueName(String name, int window) {
		String unique = name;
		for (int copy = 2; contains(unique, window); copy++) {
			unique = name + "-" + copy;
		}
		return unique;
	}

	private boolean contains(String name, int before) {
		for (int i = 0; i < before; i++) {
			if (this.names[i].equals(name)) {
				return true;
			}
		}
		return false;
	}

	/**
	 * The items of a limit's policy.
	 * @param limitName the limit
	 * @param policy its policy
	 * @return the items, kept or formatted now
	 */
	static RateLimitPolicyItems of(String limitName, RateLimitPolicy policy) {
		RateLimitPolicyItems[] kept = KEPT.get(limitName);
		if (kept != null) {
			// by identity: a limit's policy is one instance for as long as it is defined,
			// so that a request compares no policies (nor, in quotedName, windows)
			for (RateLimitPolicyItems items : kept) {
				if (items.policy == policy) {
					return items;
				}
			}
		}
		RateLimitPolicyItems items = (kept != null) ? equal(limitName, policy, kept) : null;
		if (items != null) {
			return items;
		}
		items = new RateLimitPolicyItems(limitName, policy);
		if (kept != null || KEPT.size() < MOST_LIMITS) {
			int keep = (kept != null) ? Math.min(kept.length, POLICIES_PER_NAME - 1) : 0;
			RateLimitPolicyItems[] latest = new RateLimitPolicyItems[keep + 1];
			latest[0] = items;
			if (keep > 0) {
				System.arraycopy(kept, 0, latest, 1, keep);
			}
			KEPT.put(limitName, latest);
		}
		return items;
	}

	/**
	 * The items of an equal policy kept under another instance (another application
	 * context in this JVM, a limit defined again alike), kept under this instance from
	 * now on in their place: compared once, not per request.
	 * @return the items, or {@code null} when no kept policy is equal
	 */
	private static @Nullable RateLimitPolicyItems equal(String limitName, RateLimitPolicy policy,
			RateLimitPolicyItems[] kept) {
		for (int i = 0; i < kept.length; i++) {
			if (kept[i].policy.equals(policy)) {
				RateLimitPolicyItems items = new RateLimitPolicyItems(kept[i], policy);
				RateLimitPolicyItems[] latest = kept.clone();
				latest[i] = items;
				KEPT.put(limitName, latest);
				return items;
			}
		}
		return null;
	}

	/**
	 * The policy these items were formatted for, or found under.
	 * @return the policy
	 */
	RateLimitPolicy policy() {
		return this.policy;
	}

	/**
	 * The {@code RateLimit-Policy} field.
	 * @param partitionKey the partition key every item carries, or {@code null}
	 * @return the field value
	 */
	String field(@Nullable String partitionKey) {
		if (partitionKey == null) {
			return this.field;
		}
		if (this.items.length == 1) {
			// concatenated at once: its bytes are made once, where a builder makes them
			// twice
			return this.items[0] + ";pk=" + partitionKey;
		}
		StringBuilder field = new StringBuilder(this.field.length() + this.items.length * (partitionKey.length() + 4));
		for (int i = 0; i < this.items.length; i++) {
			if (i > 0) {
				field.append(", ");
			}
			field.append(this.items[i]).append(";pk=").append(partitionKey);
		}
		return field.toString();
	}

	/**
	 * The quoted policy name of one of the policy's windows.
	 * @param limitName the limit
	 * @param window the window
	 * @return the quoted name
	 */
	String quotedName(String limitName, RateLimitWindow window) {
		int index = indexOf(window);
		return (index >= 0) ? this.quotedNames[index] : QuotaHeaders.quoted(policyName(limitName, window));
	}

	/**
	 * The policy name of one of the policy's windows, as {@code violated-policies} lists
	 * it.
	 * @param limitName the limit
	 * @param window the window
	 * @return the name, unique within the policy
	 */
	String name(String limitName, RateLimitWindow window) {
		int index = indexOf(window);
		return (index >= 0) ? this.names[index] : policyName(limitName, window);
	}

	private int indexOf(RateLimitWindow window) {
		List<RateLimitWindow> windows = this.policy.windows();
		for (int i = 0; i < windows.size(); i++) {
			if (windows.get(i) == window) {
				return i;
			}
		}
		return windows.indexOf(window);
	}

	/**
	 * The name of the policy item of one window, e.g. {@code posts-10s}.
	 * @param limitName the limit
	 * @param window the window
	 * @return the policy name
	 */
	static String policyName(String limitName, RateLimitWindow window) {
		return limitName + "-" + period(window.period());
	}

	private static String period(Duration period) {
		long millis = period.toMillis();
		if (millis % 3_600_000 == 0) {
			return (millis / 3_600_000) + "h";
		}
		if (millis % 60_000 == 0) {
			return (millis / 60_000) + "m";
		}
		return (millis % 1000 == 0) ? (millis / 1000) + "s" : millis + "ms";
	}

}
