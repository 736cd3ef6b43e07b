package io.github.redkit.ratelimit.internal;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.StringJoiner;
import java.util.concurrent.CompletableFuture;

import io.github.redkit.core.internal.AnnotationDurations;
import io.github.redkit.core.internal.ReactiveCall;
import io.github.redkit.ratelimit.RateLimitDecision;
import io.github.redkit.ratelimit.RateLimitPlanResolver;
import io.github.redkit.ratelimit.RateLimitPolicy;
import io.github.redkit.ratelimit.RateLimitReservation;
import io.github.redkit.ratelimit.RateLimitWindow;
import io.github.redkit.ratelimit.RateLimited;
import io.github.redkit.ratelimit.RateLimiter;
import org.jspecify.annotations.Nullable;

import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.util.ClassUtils;

/**
 * What a {@link RateLimited} method asks for, resolved once per method: the limit, the
 * key expressions and the cost.
 *
 * @param limit the limit: named, or inline (its name is the short name metrics, headers
 * and exceptions show, {@code Class.method}, or {@code Class} when the annotation is on
 * the class; its id what its counters are kept under, unique and stable: the class's full
 * name, then the method and its parameter types, e.g.
 * {@code com.example.MailService.send(java.lang.String,int)})
 * @param keyExpressions the SpEL key expressions; empty for one shared key
 * @param cost permits per call
 * @param reactive whether the method's result arrives later ({@link ReactiveCall})
 * @param planned whether the limit is chosen per call: the annotation's value is a SpEL
 * expression (it starts with {@code #}) whose value a {@link RateLimitPlanResolver} turns
 * into a named limit, e.g. the caller's plan
 * @param after what is decided when the call ends, {@code null} when nothing is
 */
record RateLimitedOperation(LimitReference limit, String[] keyExpressions, int cost, boolean reactive, boolean planned,
		@Nullable After after) {

	private static final SpelExpressionParser PARSER = new SpelExpressionParser();

	/** The identifier of a method limited without key expressions. */
	static final String SHARED_KEY = "all";

	/**
	 * Reads the annotation of a method, or of its class.
	 * @param method the most specific method
	 * @param invoked the invoked method (an interface's, say), whose return type the
	 * proxy sees
	 * @param targetClass the target class
	 * @return the operation, or {@code null} when the method is not rate limited
	 * @throws IllegalStateException when the annotation is inconsistent
	 */
	static @Nullable RateLimitedOperation of(Method method, Method invoked, Class<?> targetClass) {
		RateLimited annotation = AnnotatedElementUtils.findMergedAnnotation(method, RateLimited.class);
		boolean onClass = annotation == null;
		if (onClass) {
			annotation = AnnotatedElementUtils.findMergedAnnotation(targetClass, RateLimited.class);
		}
		if (annotation == null) {
			return null;
		}
		String where = "@RateLimited on " + targetClass.getSimpleName() + "." + method.getName() + "()";
		if (annotation.cost() < 1) {
			throw new IllegalStateException(where + ": cost must be at least 1 (was " + annotation.cost() + ")");
		}
		boolean named = !annotation.value().isBlank();
		boolean inline = annotation.limit() != 0 || !annotation.period().isBlank();
		if (named == inline) {
			throw new IllegalStateException(
					where + ": give either the name of a configured limit (value) or an inline limit and period, not "
							+ (named ? "both" : "neither"));
		}
		After after = After.of(annotation, where);
		if (named && annotation.value().startsWith("#")) {
			parse(annotation.value(), where + " value");
		}
		if (named) {
			return new RateLimitedOperation(LimitReference.named(annotation.value()), annotation.key(),
					annotation.cost(), ReactiveCall.isReactive(invoked), annotation.value().startsWith("#"), after);
		}
		if (annotation.limit() <= 0) {
			throw new IllegalStateException(where + ": limit must be > 0 (was " + annotation.limit() + ")");
		}
		Duration period = AnnotationDurations.parse(annotation.period(), null, where + " period");
		if (period == null || period.toMillis() < 1) {
			throw new IllegalStateException(where + ": an inline limit needs a period of at least 1ms");
		}
		RateLimitPolicy policy;
		try {
			policy = new RateLimitPolicy(annotation.algorithm(),
					List.of(RateLimitWindow.of(annotation.limit(), period)));
		}
		catch (IllegalArgumentException ex) {
			// the message says all; the root cause of a failed start-up names the method
			throw new IllegalStateException(where + ": " + ex.getMessage());
		}
		// an inline limit on a class is shared by all its methods; the short name can be
		// shared by same-named classes and by overloads, the id cannot
		Class<?> userClass = ClassUtils.getUserClass(targetClass);
		String name = onClass ? userClass.getSimpleName() : userClass.getSimpleName() + "." + method.getName();
		String id = onClass ? userClass.getName() : userClass.getName() + "." + signature(method);
		return new RateLimitedOperation(new LimitReference(name, id, policy), annotation.key(), annotation.cost(),
				ReactiveCall.isReactive(invoked), false, after);
	}

	/**
	 * The limit's name, as metrics, headers and exceptions show it.
	 * @return the name
	 */
	String limitName() {
		return this.limit.name();
	}

	/**
	 * This operation on the named limit a call's plan chose.
	 * @param name the limit's name
	 * @return the operation on that limit
	 */
	RateLimitedOperation withLimit(String name) {
		return new RateLimitedOperation(LimitReference.named(name), this.keyExpressions, this.cost, this.reactive,
				false, this.after);
	}

	/**
	 * What a call's end decides: the permits it really used and whether it counts.
	 *
	 * @param settle the SpEL expression of the permits used, empty for the cost
	 * @param countWhen the SpEL expression of whether the call counts, empty for always
	 */
	record After(String settle, String countWhen) {

		static @Nullable After of(RateLimited annotation, String where) {
			if (annotation.settle().isBlank() && annotation.countWhen().isBlank()) {
				return null;
			}
			After after = new After(annotation.settle().strip(), annotation.countWhen().strip());
			// a typo fails the start-up, not the first call's end
			parse(after.settle(), where + " settle");
			parse(after.countWhen(), where + " countWhen");
			return after;
		}

	}

	private static void parse(String expression, String where) {
		if (expression.isEmpty()) {
			return;
		}
		try {
			PARSER.parseExpression(expression);
		}
		catch (ParseException ex) {
			// the message says all; the root cause of a failed start-up names the
			// method
			throw new IllegalStateException(
					where + ": '" + expression + "' is not a valid SpEL expression: " + ex.getMessage());
		}
	}

	private static String signature(Method method) {
		StringJoiner parameters = new StringJoiner(",", method.getName() + "(", ")");
		for (Class<?> type : method.getParameterTypes()) {
			parameters.add(type.getTypeName());
		}
		return parameters.toString();
	}

	/**
	 * The limit a {@code @RateLimited} method is decided on, named or inline, built once
	 * with its operation: it asks the {@link RateLimiter} the question that fits, so that
	 * a call site need not tell the two apart. Redkit's own limiter is handed the limit's
	 * registry entry, looked up at the first call and held: a named limit defined again
	 * is seen through it, and later calls need no look-up.
	 */
	static final class LimitReference {

		private final String name;

		private final String id;

		private final @Nullable RateLimitPolicy inlinePolicy;

		private volatile @Nullable Resolved resolved;

		/**
		 * Creates a reference.
		 * @param name the limit's name (for an inline limit, the short name metrics,
		 * headers and exceptions show)
		 * @param id what the counters of an inline limit are kept under; the name for a
		 * named limit
		 * @param inlinePolicy the inline policy, or {@code null} for a named limit
		 */
		LimitReference(String name, String id, @Nullable RateLimitPolicy inlinePolicy) {
			this.name = name;
			this.id = id;
			this.inlinePolicy = inlinePolicy;
		}

		/**
		 * A configured (or defined) limit.
		 * @param name its name
		 * @return the reference
		 */
		static LimitReference named(String name) {
			return new LimitReference(name, name, null);
		}

		String name() {
			return this.name;
		}

		String id() {
			return this.id;
		}

		@Nullable RateLimitPolicy inlinePolicy() {
			return this.inlinePolicy;
		}

		RateLimitDecision tryAcquire(RateLimiter limiter, List<String> keys, int cost) {
			RedisRateLimiter redis = own(limiter);
			if (redis != null) {
				return redis.tryAcquire(entry(redis), keys, cost);
			}
			RateLimitPolicy inline = this.inlinePolicy;
			return (inline != null) ? limiter.tryAcquire(this.name, this.id, inline, keys, cost)
					: limiter.tryAcquire(this.name, keys, cost);
		}

		CompletableFuture<RateLimitDecision> tryAcquireAsync(RateLimiter limiter, List<String> keys, int cost) {
			RedisRateLimiter redis = own(limiter);
			if (redis != null) {
				return redis.tryAcquireAsync(entry(redis), keys, cost);
			}
			RateLimitPolicy inline = this.inlinePolicy;
			return (inline != null) ? limiter.tryAcquireAsync(this.name, this.id, inline, keys, cost)
					: limiter.tryAcquireAsync(this.name, keys, cost);
		}

		RateLimitReservation reserve(RateLimiter limiter, List<String> keys, int estimate) {
			RedisRateLimiter redis = own(limiter);
			if (redis != null) {
				return redis.reserve(entry(redis), keys, estimate);
			}
			RateLimitPolicy inline = this.inlinePolicy;
			return (inline != null) ? limiter.reserve(this.name, this.id, inline, keys, estimate)
					: limiter.reserve(this.name, keys, estimate);
		}

		CompletableFuture<RateLimitReservation> reserveAsync(RateLimiter limiter, List<String> keys, int estimate) {
			RedisRateLimiter redis = own(limiter);
			if (redis != null) {
				return redis.reserveAsync(entry(redis), keys, estimate);
			}
			RateLimitPolicy inline = this.inlinePolicy;
			return (inline != null) ? limiter.reserveAsync(this.name, this.id, inline, keys, estimate)
					: limiter.reserveAsync(this.name, keys, estimate);
		}

		/**
		 * Redkit's own limiter, asked through its registry entry; any other, a subclass
		 * too (the proxy Spring makes for an application's aspect on the limiter), is
		 * asked through its public face, so that its advice sees the call.
		 */
		private static @Nullable RedisRateLimiter own(RateLimiter limiter) {
			return (limiter.getClass() == RedisRateLimiter.class) ? (RedisRateLimiter) limiter : null;
		}

		/**
		 * The limit's entry in the limiter's registry, looked up once: an unknown name
		 * fails every call until it is defined.
		 */
		private RateLimitRegistry.Entry entry(RedisRateLimiter limiter) {
			Resolved resolved = this.resolved;
			if (resolved == null || resolved.limiter() != limiter) {
				RateLimitPolicy inline = this.inlinePolicy;
				RateLimitRegistry.Entry entry = (inline != null) ? limiter.registry().inline(this.name, this.id, inline)
						: limiter.registry().named(this.name);
				resolved = new Resolved(limiter, entry);
				this.resolved = resolved;
			}
			return resolved.entry();
		}

		private record Resolved(RedisRateLimiter limiter, RateLimitRegistry.Entry entry) {

		}

	}

}
