package io.github.redkit.concurrency;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.core.annotation.AliasFor;

/**
 * Limits how many calls of a method (or of every method of a class) run at once per key,
 * across every instance of the application: each call takes a leased permit in one Redis
 * round trip, renewed while it runs and given back in one round trip when it returns (a
 * method returning a {@code Mono}, a {@code Flux} or a {@code CompletableFuture} holds it
 * until that result completes, fails or is cancelled). A call over the limit throws
 * {@link ConcurrencyLimitExceededException} without running. <pre>
 * &#64;ConcurrencyLimited(value = "exports", key = "#tenantId")
 * &#64;ConcurrencyLimited(limit = 4, lease = "10s", key = "#tenantId")
 * </pre> Not to be confused with Spring Framework's
 * {@code @org.springframework.resilience.annotation.ConcurrencyLimit}, which throttles
 * within one JVM; both can annotate the same method.
 */
@Target({ ElementType.METHOD, ElementType.TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@Documented
public @interface ConcurrencyLimited {

	/**
	 * Alias for {@link #name()}.
	 * @return the limit name
	 */
	@AliasFor("name")
	String value() default "";

	/**
	 * The name of a limit under {@code redkit.concurrency-limit.limits}. Leave empty to
	 * give an inline {@link #limit()}.
	 * @return the limit name
	 */
	@AliasFor("value")
	String name() default "";

	/**
	 * A SpEL expression for the key the limit applies to (e.g. {@code #tenantId}). Empty:
	 * one limit shared by every caller. At most one expression.
	 * @return the key expression
	 */
	String[] key() default {};

	/**
	 * An inline limit: calls in flight at most per key, instead of a named limit.
	 * @return the limit
	 */
	int limit() default 0;

	/**
	 * The lease of an inline limit's permits, e.g. {@code "10s"}; default 30s. Named
	 * limits take theirs from their configuration.
	 * @return the lease
	 */
	String lease() default "";

}
