package io.github.redkit.actuate;

import java.security.Principal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * The {@code redkit} endpoint: rate limits, locks, queues and budgets as Redis holds
 * them. Read-only unless {@code management.endpoint.redkit.access=unrestricted}; never
 * shows a lock's owner token, and shows payloads only with
 * {@code redkit.endpoint.show-payloads=true}. The first selector names the capability,
 * e.g. {@code /actuator/redkit/ratelimits/{limit}/{key}}.
 */
@Endpoint(id = "redkit", defaultAccess = Access.READ_ONLY)
public class RedkitEndpoint {

	private static final String RATE_LIMITS = "ratelimits";

	private static final String LOCKS = "locks";

	private static final String QUEUES = "queues";

	private static final String BUDGETS = "budgets";

	private static final String DEAD_LETTERS = "dead-letters";

	private final @Nullable RateLimitViews rateLimits;

	private final @Nullable LockViews locks;

	private final @Nullable QueueViews queues;

	private final @Nullable BudgetViews budgets;

	/**
	 * Creates the endpoint; a capability that is not present has no views.
	 * @param rateLimits the rate-limit views
	 * @param locks the lock views
	 * @param queues the queue views
	 * @param budgets the budget views
	 */
	public RedkitEndpoint(@Nullable RateLimitViews rateLimits, @Nullable LockViews locks, @Nullable QueueViews queues,
			@Nullable BudgetViews budgets) {
		this.rateLimits = rateLimits;
		this.locks = locks;
		this.queues = queues;
		this.budgets = budgets;
	}

	/**
	 * The capabilities present, the configured rate-limit policies and the queues.
	 * @return the summary
	 */
	@ReadOperation
	public Map<String, Object> summary() {
		Map<String, Object> summary = new LinkedHashMap<>();
		summary.put("capabilities", capabilities());
		summary.put("rateLimits", (this.rateLimits != null) ? this.rateLimits.policies() : Map.of());
		summary.put("queues", (this.queues != null) ? this.queues.names() : List.of());
		return summary;
	}

	/**
	 * {@code locks} (one page, from {@code cursor}) or {@code queues} (their counts).
	 * @param section the section
	 * @param cursor where the previous page of locks stopped
	 * @param count how many locks at most
	 * @return the section, or {@code null} when unknown
	 */
	@ReadOperation
	public @Nullable Object section(@Selector String section, @Nullable String cursor, @Nullable Integer count) {
		if (LOCKS.equals(section) && this.locks != null) {
			return this.locks.page(cursor, count);
		}
		if (QUEUES.equals(section) && this.queues != null) {
			return this.queues.stats();
		}
		return null;
	}

	/**
	 * {@code budgets/{id}}: a budget's balance.
	 * @param section the section
	 * @param id the budget
	 * @return the balance, or {@code null} when unknown
	 */
	@ReadOperation
	public @Nullable Object item(@Selector String section, @Selector String id) {
		return (BUDGETS.equals(section) && this.budgets != null) ? this.budgets.remaining(id) : null;
	}

	/**
	 * {@code ratelimits/{limit}/{key}} (usage per window) or
	 * {@code queues/{queue}/dead-letters} (one page).
	 * @param section the section
	 * @param name the limit or queue
	 * @param item the identifier or {@code dead-letters}
	 * @param offset dead letters to skip
	 * @param count dead letters at most
	 * @return the answer, or {@code null} when unknown
	 */
	@ReadOperation
	public @Nullable Object detail(@Selector String section, @Selector String name, @Selector String item,
			@Nullable Integer offset, @Nullable Integer count) {
		if (RATE_LIMITS.equals(section) && this.rateLimits != null) {
			return this.rateLimits.usage(name, item);
		}
		if (QUEUES.equals(section) && DEAD_LETTERS.equals(item) && this.queues != null) {
			return this.queues.deadLetters(name, offset, count);
		}
		return null;
	}

	/**
	 * {@code queues/{queue}/dead-letters}: replays one dead letter ({@code id}) or all.
	 * @param section the section
	 * @param name the queue
	 * @param item {@code dead-letters}
	 * @param id the dead letter, or {@code null} for all
	 * @param principal the operator
	 * @return how many were replayed, or {@code null} when unknown
	 */
	@WriteOperation
	public @Nullable Object replay(@Selector String section, @Selector String name, @Selector String item,
			@Nullable String id, @Nullable Principal principal) {
		if (QUEUES.equals(section) && DEAD_LETTERS.equals(item) && this.queues != null) {
			return Map.of("replayed", this.queues.replay(name, id, who(principal)));
		}
		return null;
	}

	/**
	 * {@code locks/{key}} (force-release) or {@code queues/{queue}} (purge).
	 * @param section the section
	 * @param name the lock's key or the queue
	 * @param principal the operator
	 * @return the outcome, or {@code null} when unknown
	 */
	@DeleteOperation
	public @Nullable Object delete(@Selector String section, @Selector String name, @Nullable Principal principal) {
		if (LOCKS.equals(section) && this.locks != null) {
			return Map.of("released", this.locks.forceRelease(name, who(principal)));
		}
		if (QUEUES.equals(section) && this.queues != null) {
			return Map.of("purgedKeys", this.queues.purge(name, who(principal)));
		}
		return null;
	}

	/**
	 * {@code ratelimits/{limit}/{key}}: deletes the identifier's counters.
	 * @param section the section
	 * @param name the limit
	 * @param item the identifier
	 * @param principal the operator
	 * @return whether there were counters, or {@code null} when unknown
	 */
	@DeleteOperation
	public @Nullable Object reset(@Selector String section, @Selector String name, @Selector String item,
			@Nullable Principal principal) {
		if (RATE_LIMITS.equals(section) && this.rateLimits != null) {
			Boolean reset = this.rateLimits.reset(name, item, who(principal));
			return (reset != null) ? Map.of("reset", reset) : null;
		}
		return null;
	}

	private List<String> capabilities() {
		List<String> capabilities = new ArrayList<>();
		if (this.rateLimits != null) {
			capabilities.add("rate-limit");
		}
		if (this.locks != null) {
			capabilities.add("lock");
		}
		if (this.queues != null) {
			capabilities.add("queue");
		}
		if (this.budgets != null) {
			capabilities.add("budget");
		}
		return capabilities;
	}

	private static String who(@Nullable Principal principal) {
		return (principal != null) ? "'" + principal.getName() + "'" : "an anonymous operator";
	}

}
