package io.github.redkit.autoconfigure.region;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.context.annotation.Conditional;

/**
 * Matches when {@code redkit.regions.replicate} (by default all of them) names a kind of
 * state.
 */
@Target({ ElementType.TYPE, ElementType.METHOD })
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Conditional(OnReplicatedCondition.class)
@interface ConditionalOnReplicated {

	/**
	 * The kind: {@code counters}, {@code budgets} or {@code rate-limits}.
	 * @return the kind
	 */
	String value();

}
