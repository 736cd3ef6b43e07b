package io.github.redkit.faults;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The resource an idempotent step protects, shared by every instance of one run: it
 * applies a step's effect for the claim that holds the step and refuses a holder whose
 * claim was taken over, as the docs tell users to fence a slow holder (it knows the last
 * claim granted for each step, the claim's token).
 */
final class FencedStepStore {

	private final Map<String, String> granted = new ConcurrentHashMap<>();

	/**
	 * Notes that a claim was granted the step.
	 * @param step the operation and step
	 * @param token the claim's token
	 */
	void granted(String step, String token) {
		this.granted.put(step, token);
	}

	/**
	 * Applies the step's effect for a claim.
	 * @param step the operation and step
	 * @param token the claim's token
	 * @return {@code false} when another claim was granted the step since
	 */
	boolean apply(String step, String token) {
		return token.equals(this.granted.get(step));
	}

}
