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
 * The {@code redkit} endpoint: what Redkit keeps in Redis, one section per capability
 * present ({@link RedkitEndpointSection}, contributed by the capability), and the
 * activity counted by Micrometer. Read-only unless
 * {@code management.endpoint.redkit.access=unrestricted}; never shows a lock's owner
 * token or a step's claim token, and shows payloads and step results only with
 * {@code redkit.endpoint.show-payloads=true}. The first selector names the section, e.g.
 * {@code /actuator/redkit/ratelimits/{limit}/{key}}.
 */
@Endpoint(id = "redkit", defaultAccess = Access.READ_ONLY)
public class RedkitEndpoint {

	private final Access access;

	private final Map<String, RedkitEndpointSection> sections = new LinkedHashMap<>();

	/**
	 * Creates the endpoint.
	 * @param access the endpoint's effective access, shown in the summary
	 * @param sections the sections, in the order the summary lists them
	 */
	public RedkitEndpoint(Access access, List<RedkitEndpointSection> sections) {
		sections.forEach((section) -> Assert.isTrue(this.sections.putIfAbsent(section.name(), section) == null,
				() -> "Two endpoint sections are named '" + section.name() + "'"));
		this.access = access;
	}

	/**
	 * The capabilities present, the endpoint's access, the sections that can be read, and
	 * what each section adds (the configured rate-limit policies and queues, say).
	 * @return the summary
	 */
	@ReadOperation
	public Map<String, Object> summary() {
		Map<String, Object> summary = new LinkedHashMap<>();
		summary.put("capabilities", capabilities());
		summary.put("access", this.access.name().toLowerCase(Locale.ROOT).replace('_', '-'));
		summary.put("sections", List.copyOf(this.sections.keySet()));
		this.sections.values().forEach((section) -> summary.putAll(section.summary()));
		return summary;
	}

	/**
	 * One page of a section ({@code locks} or {@code control} from {@code cursor},
	 * {@code queues}, {@code activity}, {@code regions}...).
	 * @param section the section
	 * @param cursor where the previous page stopped
	 * @param count how many entries at most
	 * @return the page, or {@code null} when unknown
	 */
	@ReadOperation
	public @Nullable Object section(@Selector String section, @Nullable String cursor, @Nullable Integer count) {
		RedkitEndpointSection found = this.sections.get(section);
		return (found != null) ? found.read(cursor, count) : null;
	}

	/**
	 * One entry of a section: {@code budgets/{id}} (a budget's balance) or
	 * {@code steps/{operation}} (the recorded steps of an operation), say.
	 * @param section the section
	 * @param id the entry
	 * @return the entry, or {@code null} when unknown
	 */
	@ReadOperation
	public @Nullable Object item(@Selector String section, @Selector String id) {
		RedkitEndpointSection found = this.sections.get(section);
		return (found != null) ? found.read(List.of(id), null, null) : null;
	}

	/**
	 * An entry of a section under a name: {@code ratelimits/{limit}/{key}} (usage per
	 * window) or {@code queues/{queue}/dead-letters} (one page), say. An identifier's
	 * remaining segments are passed on as they are, so it may contain {@code /} (an
	 * encoded {@code %2F} is refused by the server).
	 * @param section the section
	 * @param name the limit or queue
	 * @param path the identifier or {@code dead-letters}
	 * @param offset entries to skip
	 * @param count entries at most
	 * @return the answer, or {@code null} when unknown
	 */
	@ReadOperation
	public @Nullable Object detail(@Selector String section, @Selector String name,
			@Selector(match = Match.ALL_REMAINING) String[] path, @Nullable Integer offset, @Nullable Integer count) {
		RedkitEndpointSection found = this.sections.get(section);
		if (found == null || path.length == 0) {
			return null;
		}
		List<String> segments = new ArrayList<>(path.length + 1);
		segments.add(name);
		segments.addAll(Arrays.asList(path));
		return found.read(segments, offset, count);
	}

	/**
	 * Acts on an entry of a section: {@code queues/{queue}/dead-letters} replays one dead
	 * letter ({@code id}) or all, say.
	 * @param section the section
	 * @param name the queue
	 * @param item {@code dead-letters}
	 * @param id the dead letter, or {@code null} for all
	 * @param principal the operator
	 * @return the outcome, or {@code null} when unknown
	 */
	@WriteOperation
	public @Nullable Object replay(@Selector String section, @Selector String name, @Selector String item,
			@Nullable String id, @Nullable Principal principal) {
		RedkitEndpointSection found = this.sections.get(section);
		return (found != null) ? found.write(List.of(name, item), id, who(principal)) : null;
	}

	/**
	 * Deletes or resets an entry of a section: {@code locks/{id}} (force-release, by the
	 * {@code id} the lock listing shows), {@code queues/{queue}} (purge) or
	 * {@code ratelimits/{limit}/{key}} (resets the identifier's counters), say. An
	 * identifier's remaining segments are passed on as they are, so it may contain
	 * {@code /}.
	 * @param section the section
	 * @param path the entry
	 * @param principal the operator
	 * @return the outcome, or {@code null} when unknown
	 */
	@DeleteOperation
	public @Nullable Object delete(@Selector String section, @Selector(match = Match.ALL_REMAINING) String[] path,
			@Nullable Principal principal) {
		RedkitEndpointSection found = this.sections.get(section);
		return (found != null && path.length > 0) ? found.delete(List.of(path), who(principal)) : null;
	}

	private List<String> capabilities() {
		List<String> capabilities = new ArrayList<>();
		this.sections.values().forEach((section) -> {
			String capability = section.capability();
			if (capability != null && !capabilities.contains(capability)) {
				capabilities.add(capability);
			}
		});
		return capabilities;
	}

	private static String who(@Nullable Principal principal) {
		return (principal != null) ? "'" + principal.getName() + "'" : "an anonymous operator";
	}

}
