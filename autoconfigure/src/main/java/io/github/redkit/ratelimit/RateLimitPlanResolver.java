package io.github.redkit.ratelimit;

/**
 * Turns a call's plan into the named limit it is counted under, for
 * {@code @RateLimited(value = "#user.plan")}: the expression yields the plan (a tier, a
 * tenant's contract), and this resolver the name of a limit under
 * {@code redkit.rate-limit.limits} or defined with {@link RateLimiter#define}. A bean of
 * this type replaces the default, which takes the plan as the limit's name.
 */
@FunctionalInterface
public interface RateLimitPlanResolver {

	/** Takes the plan as the limit's name. */
	RateLimitPlanResolver BY_NAME = (plan) -> plan;

	/**
	 * The limit of a plan.
	 * @param plan what the annotation's expression yielded, never null or empty
	 * @return the limit's name
	 */
	String limitName(String plan);

}
