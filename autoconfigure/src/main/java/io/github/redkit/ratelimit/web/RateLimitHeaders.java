package io.github.redkit.ratelimit.web;

import java.time.Duration;
import java.util.stream.Collectors;

import io.github.redkit.ratelimit.RateLimitDecision;
import io.github.redkit.ratelimit.RateLimitPolicy;
import io.github.redkit.ratelimit.RateLimitWindow;
import org.jspecify.annotations.Nullable;

/**
 * Formats the {@code RateLimit-Policy} and {@code RateLimit} fields of the IETF draft
 * "RateLimit header fields for HTTP" (draft-ietf-httpapi-ratelimit-headers-10): one
 * policy item per window, named {@code "<limit>-<period>"}, and the state of the most
 * restrictive window. <pre>
 * RateLimit-Policy: "api-1s";q=10;w=1, "api-1m";q=120;w=60
 * RateLimit: "api-1s";r=0;t=1
 * </pre>
 */
public final class RateLimitHeaders {

	/** The policy field. */
	public static final String POLICY = "RateLimit-Policy";

	/** The state field. */
	public static final String STATE = "RateLimit";

	/** The draft's problem type for a request refused because a quota is exhausted. */
	public static final String QUOTA_EXCEEDED = "https://iana.org/assignments/http-problem-types#quota-exceeded";

	/** The problem detail member that lists the names of the exhausted policies. */
	public static final String VIOLATED_POLICIES = "violated-policies";

	private RateLimitHeaders() {
	}

	/**
	 * The {@code RateLimit-Policy} value.
	 * @param limitName the limit
	 * @param policy its policy
	 * @return the field value
	 */
	public static String policy(String limitName, RateLimitPolicy policy) {
		return policy.windows()
			.stream()
			.map((window) -> item(limitName, window) + ";q=" + window.limit() + ";w=" + seconds(window.period()))
			.collect(Collectors.joining(", "));
	}

	/**
	 * The {@code RateLimit} value, or {@code null} when the decision does not know its
	 * window or its remaining permits.
	 * @param limitName the limit
	 * @param decision the decision
	 * @return the field value
	 */
	public static @Nullable String state(String limitName, RateLimitDecision decision) {
		if (decision.window() == null || decision.remaining() < 0) {
			return null;
		}
		return item(limitName, decision.window()) + ";r=" + decision.remaining() + ";t="
				+ seconds(decision.resetAfter());
	}

	/**
	 * Whole seconds, rounded up, as {@code Retry-After} and the draft's parameters want.
	 * @param duration the duration
	 * @return the seconds, at least 0
	 */
	public static long seconds(Duration duration) {
		long millis = Math.max(duration.toMillis(), 0);
		return (millis + 999) / 1000;
	}

	private static String item(String limitName, RateLimitWindow window) {
		return quoted(policyName(limitName, window));
	}

	/**
	 * The name of the policy item of one window, e.g. {@code posts-10s}.
	 * @param limitName the limit
	 * @param window the window
	 * @return the policy name
	 */
	public static String policyName(String limitName, RateLimitWindow window) {
		return limitName + "-" + period(window.period());
	}

	/**
	 * A structured-field string (RFC 9651): printable ASCII in double quotes, with
	 * {@code "} and {@code \} escaped; any other character becomes {@code _}.
	 * @param name the text
	 * @return the quoted string
	 */
	public static String quoted(String name) {
		StringBuilder quoted = new StringBuilder("\"");
		for (char c : name.toCharArray()) {
			if (c < 0x20 || c > 0x7e) {
				quoted.append('_');
			}
			else {
				quoted.append((c == '"' || c == '\\') ? "\\" + c : String.valueOf(c));
			}
		}
		return quoted.append('"').toString();
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
