package io.github.redkit.actuate.internal;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.github.redkit.actuate.RedkitEndpointActivity;
import io.github.redkit.actuate.RedkitEndpointSection;
import org.jspecify.annotations.Nullable;

import org.springframework.core.Ordered;

/**
 * The {@code activity} section: since start, the cumulative counts of the meters each
 * capability declares ({@link RedkitEndpointActivity}), by name and outcome. A dashboard
 * takes the difference of two answers to draw rates; nothing is read from Redis.
 */
public final class ActivityEndpointSection implements RedkitEndpointSection, Ordered {

	/** After the capabilities' own sections. */
	public static final int ORDER = 1000;

	private final List<RedkitEndpointActivity> activities;

	private final Counts counts;

	/**
	 * Creates the section.
	 * @param activities what the capabilities count, in the order shown
	 * @param counts reads the counts ({@link Counts#NONE} without Micrometer)
	 */
	public ActivityEndpointSection(List<RedkitEndpointActivity> activities, Counts counts) {
		this.activities = List.copyOf(activities);
		this.counts = counts;
	}

	@Override
	public String name() {
		return "activity";
	}

	@Override
	public @Nullable String capability() {
		return null;
	}

	@Override
	public int getOrder() {
		return ORDER;
	}

	/**
	 * The counts, at this moment.
	 * @return {@code at} (epoch milliseconds) and counts per capability, name and outcome
	 */
	@Override
	public Map<String, Object> read(@Nullable String cursor, @Nullable Integer count) {
		Map<String, Object> activity = new LinkedHashMap<>();
		activity.put("at", System.currentTimeMillis());
		for (RedkitEndpointActivity declared : this.activities) {
			Map<String, Map<String, Long>> counted = this.counts.count(declared.nameTag(), declared.meters());
			counted.replaceAll((name, outcomes) -> declared.outcomes(outcomes));
			activity.put(declared.name(), counted);
		}
		return activity;
	}

	/**
	 * Reads cumulative counts from wherever meters are kept.
	 */
	@FunctionalInterface
	public interface Counts {

		/** Without Micrometer: nothing counted. */
		Counts NONE = (nameTag, meters) -> new TreeMap<>();

		/**
		 * The counts of some meters.
		 * @param nameTag the tag that names a limit, lock or queue
		 * @param meters the meters' names
		 * @return a modifiable map of the count per outcome, per name
		 */
		Map<String, Map<String, Long>> count(String nameTag, List<String> meters);

	}

}
