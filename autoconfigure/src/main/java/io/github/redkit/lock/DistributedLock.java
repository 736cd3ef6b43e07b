package io.github.redkit.lock;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs a method while holding a distributed lock on a key built from its arguments, and
 * releases the lock when the method returns or throws. With the default advisor order the
 * lock is taken before a {@code @Transactional} transaction starts and released after it
 * completed. Not re-entrant: a nested acquisition of a key this thread already holds
 * through an annotated method fails at once with an {@link IllegalStateException}. <pre>
 * &#64;DistributedLock(key = "'billing:' + #userId", waitTime = "10s")
 * public Invoice charge(String userId) { ... }
 * </pre>
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface DistributedLock {

	/**
	 * The lock's key, a SpEL expression over the method's arguments (e.g.
	 * {@code "'billing:' + #userId"}). The expression itself (not its value) names the
	 * lock in metrics.
	 * @return the key expression
	 */
	String key();

	/**
	 * How long to wait for the lock ({@code "0s"} = try once); empty for
	 * {@code redkit.lock.wait-time}.
	 * @return the wait time, e.g. {@code "10s"}
	 */
	String waitTime() default "";

	/**
	 * How long the lock lives if its holder dies. Empty: {@code redkit.lock.lease-time},
	 * renewed while the method runs. Given: that lease, not renewed; a method that runs
	 * longer loses the lock.
	 * @return the lease, e.g. {@code "30s"}
	 */
	String leaseTime() default "";

}
