package io.github.redkit.ratelimit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Limits how often a method (or every method of a class) may be called: each call is
 * decided in one Redis round trip over every window of the limit and every identifier the
 * {@link #key() key} expressions yield. A refused call throws
 * {@link RateLimitExceededException} and consumes nothing. <pre>
 * &#64;RateLimited(value = "api", key = { "'ip:' + #request.remoteAddr", "'user:' + #userId" })
 * &#64;RateLimited(limit = 5, period = "1m", key = "#email")
 * &#64;RateLimited(limit = 5, period = "15m", algorithm = RateLimitAlgorithm.SLIDING_LOG, key = "#email")
 * &#64;RateLimited(value = "llm-tokens", key = "#tenant", cost = 2000, settle = "#result.usage.totalTokens")
 * &#64;RateLimited(value = "login-failures", key = "#email", countWhen = "#exception != null")
 * </pre>
 */
@Target({ ElementType.METHOD, ElementType.TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@Documented
public @interface RateLimited {

	/**
	 * The name of a limit under {@code redkit.rate-limit.limits} (or defined through
	 * {@link RateLimiter#define}), or a SpEL expression starting with {@code #} that
	 * yields each call's plan (e.g. {@code "#user.plan"}), which the
	 * {@link RateLimitPlanResolver} turns into a named limit. Leave empty to give an
	 * inline {@link #limit()} and {@link #period()}.
	 * @return the limit name, or the expression of the plan
	 */
	String value() default "";

	/**
	 * SpEL expressions, one per identifier (e.g. the client IP and the user id); the call
	 * is allowed only when every identifier is under every window. Empty: one limit
	 * shared by every caller of the method.
	 * @return the key expressions
	 */
	String[] key() default {};

	/**
	 * An inline limit: calls allowed per {@link #period()}, instead of a named limit.
	 * @return the number of calls
	 */
	long limit() default 0;

	/**
	 * The algorithm of the inline {@link #limit()}.
	 * @return the algorithm
	 */
	RateLimitAlgorithm algorithm() default RateLimitAlgorithm.SLIDING_WINDOW;

	/**
	 * The period of the inline {@link #limit()}, e.g. {@code "1s"}, {@code "1m"}.
	 * @return the period
	 */
	String period() default "";

	/**
	 * How many permits one call takes; with {@link #settle()}, the estimate taken up
	 * front.
	 * @return the cost, at least 1
	 */
	int cost() default 1;

	/**
	 * A SpEL expression, evaluated when the call ends, for the permits it really used
	 * (e.g. {@code "#result.usage.totalTokens"}): over the method's arguments and
	 * {@code #result}, the value it returned (for a {@code Mono} or
	 * {@code CompletableFuture} the value, for a {@code Flux} its last element). The
	 * {@link #cost()} is taken up front as an estimate; a call that used less gives the
	 * rest back in the window it was decided in, one that used more is charged the excess
	 * (see {@link RateLimitReservation}). A call that throws, or an expression that fails
	 * or yields nothing, keeps the estimate. Empty: the cost is what a call uses.
	 * @return the expression of the amount used
	 */
	String settle() default "";

	/**
	 * A SpEL expression, evaluated when the call ends, for whether it counts: over the
	 * method's arguments, {@code #result} (as for {@link #settle()}) and
	 * {@code #exception} (what the call threw, or {@code null}), e.g.
	 * {@code "#exception != null"} to count only failed log-ins. The permits are taken
	 * before the call, so a burst cannot pass unchecked, and given back when the call
	 * does not count. Empty: every call the limit let through counts.
	 * @return the expression of whether the call counts
	 */
	String countWhen() default "";

}
