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
 * </pre>
 */
@Target({ ElementType.METHOD, ElementType.TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@Documented
public @interface RateLimited {

	/**
	 * The name of a limit under {@code redkit.rate-limit.limits} (or defined through
	 * {@link RateLimiter#define}). Leave empty to give an inline {@link #limit()} and
	 * {@link #period()}.
	 * @return the limit name
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
	 * How many permits one call takes.
	 * @return the cost, at least 1
	 */
	int cost() default 1;

}
