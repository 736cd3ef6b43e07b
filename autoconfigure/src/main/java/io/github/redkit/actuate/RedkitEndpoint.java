package io.github.redkit.actuate;

import java.security.Principal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.Selector.Match;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.util.Assert;

/**
 * The {@code redkit} endpoint: rate limits, locks, queues, budgets, idempotent steps and
 * control state as Redis holds them, and the activity counted by Micrometer. Read-only
 * unless {@code management.endpoint.redkit.access=unrestricted}; never shows a lock's
 * owner token or a step's claim token, and shows payloads and step results only with
 * {@code redkit.endpoint.show-payloads=true}. The first selector names the capability,
 * e.g. {@code /actuator/redkit/ratelimits/{limit}/{key}}.
 */
@Endpoint(id = "redkit", defaultAccess = Access.READ_ONLY)
public class RedkitEndpoint {

	private static final String RATE_LIMITS = "ratelimits";

	private static final String LOCKS = "locks";

	private static final String QUEUES = "queues";

	private static final String BUDGETS = "budgets";

	private static final String STEPS = "steps";

	private static final String CONTROL = "control";

	private static final String ACTIVITY = "activity";

	private static final String DEAD_LETTERS = "dead-letters";

	private final Access access;

	private final @Nullable RateLimitViews rateLimits;

	private final @Nullable LockViews locks;

	private final @Nullable QueueViews queues;

	private final @Nullable BudgetViews budgets;

	private final @Nullable StepViews steps;

	private final @Nullable ControlViews control;

	private final @Nullable ActivityViews activity;

	private final Map<String, RedkitEndpointSection> contributed = new LinkedHashMap<>();

	/**
	 * Creates a read-only endpoint of four capabilities; a capability that is not present
	 * has no views.
	 * @param rateLimits the rate-limit views
	 * @param locks the lock views
	 * @param queues the queue views
	 * @param budgets the budget views
	 */
	public RedkitEndpoint(@Nullable RateLimitViews rateLimits, @Nullable LockViews locks, @Nullable QueueViews queues,
			@Nullable BudgetViews budgets) {
		this(Access.READ_ONLY, rateLimits, locks, queues, budgets, null, null, null);
	}

	/**
	 * Creates the endpoint; a capability that is not present has no views.
	 * @param access the endpoint's effective access, shown in the summary
	 * @param rateLimits the rate-limit views
	 * @param locks the lock views
	 * @param queues the queue views
	 * @param budgets the budget views
	 * @param steps the idempotent-step views
	 * @param control the control-state views
	 * @param activity the activity views ({@code null} without Micrometer: empty counts)
	 */
	public RedkitEndpoint(Access access, @Nullable RateLimitViews rateLimits, @Nullable LockViews locks,
			@Nullable QueueViews queues, @Nullable BudgetViews budgets, @Nullable StepViews steps,
			@Nullable ControlViews control, @Nullable ActivityViews activity) {
		this(access, rateLimits, locks, queues, budgets, steps, control, activity, List.of());
	}

	/**
	 * Creates the endpoint with the sections capabilities contribute; a capability that
	 * is not present has no views.
	 * @param access the endpoint's effective access, shown in the summary
	 * @param rateLimits the rate-limit views
	 * @param locks the lock views
	 * @param queues the queue views
	 * @param budgets the budget views
	 * @param steps the idempotent-step views
	 * @param control the control-state views
	 * @param activity the activity views ({@code null} without Micrometer: empty counts)
	 * @param sections the contributed sections, in order
	 */
	public RedkitEndpoint(Access access, @Nullable RateLimitViews rateLimits, @Nullable LockViews locks,
			@Nullable QueueViews queues, @Nullable BudgetViews budgets, @Nullable StepViews steps,
			@Nullable ControlViews control, @Nullable ActivityViews activity, List<RedkitEndpointSection> sections) {
		sections.forEach((section) -> {
			Assert.isTrue(this.contributed.putIfAbsent(section.name(), section) == null,
					() -> "Two endpoint sections are named '" + section.name() + "'");
		});
		this.access = access;
		this.rateLimits = rateLimits;
		this.locks = locks;
		this.queues = queues;
		this.budgets = budgets;
		this.steps = steps;
		this.control = control;
		this.activity = activity;
	}

	/**
	 * The capabilities present, the endpoint's access, the sections that can be read, the
	 * configured rate-limit policies and the queues.
	 * @return the summary
	 */
	@ReadOperation
	public Map<String, Object> summary() {
		Map<String, Object> summary = new LinkedHashMap<>();
		summary.put("capabilities", capabilities());
		summary.put("access", this.access.name().toLowerCase(Locale.ROOT).replace('_', '-'));
		summary.put("sections", sections());
		summary.put("rateLimits", (this.rateLimits != null) ? this.rateLimits.policies() : Map.of());
		summary.put("queues", (this.queues != null) ? this.queues.names() : List.of());
		return summary;
	}

	/**
	 * {@code locks} or {@code control} (one page, from {@code cursor}), {@code queues}
	 * (their counts), {@code activity} (meter counts since start), or a section a
	 * capability contributed ({@link RedkitEndpointSection}, {@code regions} say).
	 * @param section the section
	 * @param cursor where the previous page stopped
	 * @param count how many entries at most
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
		if (CONTROL.equals(section) && this.control != null) {
			return this.control.page(cursor, count);
		}
		if (ACTIVITY.equals(section)) {
			return (this.activity != null) ? this.activity.activity() : noActivity();
		}
		RedkitEndpointSection contributed = this.contributed.get(section);
		return (contributed != null) ? contributed.read(cursor, count) : null;
	}

	/**
	 * {@code budgets/{id}} (a budget's balance) or {@code steps/{operation}} (the
	 * recorded steps of an operation).
	 * @param section the section
	 * @param id the budget or the operation
	 * @return the answer, or {@code null} when unknown
	 */
	@ReadOperation
	public @Nullable Object item(@Selector String section, @Selector String id) {
		if (BUDGETS.equals(section) && this.budgets != null) {
			return this.budgets.remaining(id);
		}
		if (STEPS.equals(section) && this.steps != null) {
			return this.steps.steps(id);
		}
		return null;
	}

	/**
	 * {@code ratelimits/{limit}/{key}} (usage per window) or
	 * {@code queues/{queue}/dead-letters} (one page). An identifier's remaining segments
	 * are joined with {@code /}, so it may contain {@code /} (an encoded {@code %2F} is
	 * refused by the server).
	 * @param section the section
	 * @param name the limit or queue
	 * @param path the identifier or {@code dead-letters}
	 * @param offset dead letters to skip
	 * @param count dead letters at most
	 * @return the answer, or {@code null} when unknown
	 */
	@ReadOperation
	public @Nullable Object detail(@Selector String section, @Selector String name,
			@Selector(match = Match.ALL_REMAINING) String[] path, @Nullable Integer offset, @Nullable Integer count) {
		if (path.length == 0) {
			return null;
		}
		String item = String.join("/", path);
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
	 * {@code locks/{id}} (force-release, by the {@code id} the lock listing shows, so
	 * that a hashed key or a key with {@code /} is released too), {@code queues/{queue}}
	 * (purge) or {@code ratelimits/{limit}/{key}} (resets the identifier's counters). An
	 * identifier's remaining segments are joined with {@code /}, so it may contain
	 * {@code /}.
	 * @param section the section
	 * @param path the lock's id, the queue, or the limit and the identifier
	 * @param principal the operator
	 * @return the outcome, or {@code null} when unknown
	 */
	@DeleteOperation
	public @Nullable Object delete(@Selector String section, @Selector(match = Match.ALL_REMAINING) String[] path,
			@Nullable Principal principal) {
		if (path.length == 0) {
			return null;
		}
		if (LOCKS.equals(section) && this.locks != null && path.length == 1) {
			return Map.of("released", this.locks.forceReleaseById(path[0], who(principal)));
		}
		if (QUEUES.equals(section) && this.queues != null && path.length == 1) {
			return Map.of("purgedKeys", this.queues.purge(path[0], who(principal)));
		}
		if (RATE_LIMITS.equals(section) && this.rateLimits != null && path.length > 1) {
			String key = String.join("/", Arrays.asList(path).subList(1, path.length));
			Boolean reset = this.rateLimits.reset(path[0], key, who(principal));
			return (reset != null) ? Map.of("reset", reset) : null;
		}
		return null;
	}

	// without Micrometer (ActivityViews needs it on the class path): the same shape,
	// empty
	private static Map<String, Object> noActivity() {
		Map<String, Object> activity = new LinkedHashMap<>();
		activity.put("at", System.currentTimeMillis());
		activity.put("rateLimits", Map.of());
		activity.put("concurrency", Map.of());
		activity.put("locks", Map.of());
		activity.put("queues", Map.of());
		return activity;
	}

	private List<String> sections() {
		List<String> sections = new ArrayList<>();
		addIf(sections, RATE_LIMITS, this.rateLimits);
		addIf(sections, LOCKS, this.locks);
		addIf(sections, QUEUES, this.queues);
		addIf(sections, BUDGETS, this.budgets);
		addIf(sections, STEPS, this.steps);
		addIf(sections, CONTROL, this.control);
		sections.add(ACTIVITY);
		sections.addAll(this.contributed.keySet());
		return sections;
	}

	private static void addIf(List<String> sections, String section, @Nullable Object views) {
		if (views != null) {
			sections.add(section);
		}
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
		if (this.steps != null) {
			capabilities.add("idempotency");
		}
		if (this.control != null) {
			capabilities.add("pubsub");
		}
		this.contributed.values()
			.stream()
			.map(RedkitEndpointSection::capability)
			.filter((capability) -> !capabilities.contains(capability))
			.forEach(capabilities::add);
		return capabilities;
	}

	private static String who(@Nullable Principal principal) {
		return (principal != null) ? "'" + principal.getName() + "'" : "an anonymous operator";
	}

}
