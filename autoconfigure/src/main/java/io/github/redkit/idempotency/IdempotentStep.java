package io.github.redkit.idempotency;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs a method as one step of an operation, at most once, and only after exactly the
 * steps named in {@link #after()}. For an auction with steps {@code bid}, {@code notice}
 * and {@code timeout}: <pre>
 * &#64;IdempotentStep(operation = "#event.auctionId", step = "notice", after = "bid")
 * public SpendResult onNotice(NoticeEvent event) { ... }
 * </pre>
 * <ul>
 * <li>claimed: the method runs; its result is stored as JSON when it returns; when it
 * throws, the claim is removed so that a retry can run it;</li>
 * <li>duplicate (the step is done): the method does not run and the first run's result is
 * returned (read back as the method's return type; {@code null} for {@code void});</li>
 * <li>out of order (the done steps are not exactly {@code after}):
 * {@link StepOutOfOrderException};</li>
 * <li>in progress (this step's first run, or a step it depends on, is still running):
 * {@link StepInProgressException}.</li>
 * </ul>
 * A single step with {@code operation = "#idempotencyKey"} makes an HTTP idempotency key;
 * {@link #fingerprint()} then refuses the same key with a different payload.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface IdempotentStep {

	/**
	 * SpEL expression of the operation id (e.g. {@code #event.auctionId}); all steps of
	 * one operation share it.
	 * @return the expression
	 */
	String operation();

	/**
	 * The step's name, a constant (e.g. {@code notice}).
	 * @return the name
	 */
	String step();

	/**
	 * The steps that must be done, exactly, before this one; empty for a first step.
	 * @return the step names
	 */
	String[] after() default {};

	/**
	 * How long the operation's record is kept, e.g. {@code "48h"}; empty for
	 * {@code redkit.idempotency.ttl}.
	 * @return the duration
	 */
	String ttl() default "";

	/**
	 * How long a claim holds the step while the method runs, e.g. {@code "30s"}; after it
	 * a crashed holder's claim no longer blocks retries. Empty for
	 * {@code redkit.idempotency.in-progress-lease}.
	 * @return the duration
	 */
	String lease() default "";

	/**
	 * Optional SpEL expression of the request payload (e.g. {@code #order}); its JSON is
	 * hashed and stored with the step, and a later call with the same operation but a
	 * different payload fails with {@link IdempotencyKeyReusedException}.
	 * @return the expression, empty for none
	 */
	String fingerprint() default "";

}
