package io.github.redkit.ratelimit;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import org.greenbytes.http.sfv.ByteSequenceItem;
import org.greenbytes.http.sfv.IntegerItem;
import org.greenbytes.http.sfv.Item;
import org.greenbytes.http.sfv.ListElement;
import org.greenbytes.http.sfv.Parameters;
import org.greenbytes.http.sfv.Parser;
import org.greenbytes.http.sfv.StringItem;
import org.jspecify.annotations.Nullable;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Reads the {@code RateLimit-Policy} and {@code RateLimit} fields of
 * draft-ietf-httpapi-ratelimit-headers-11 with an RFC 9651 parser written by someone
 * else, and checks the types the draft requires: a list of items whose values are
 * strings, {@code q}, {@code w}, {@code r} and {@code t} non-negative integers ({@code w}
 * above zero), {@code qu} a string, {@code pk} a byte sequence.
 */
public final class RateLimitFields {

	private RateLimitFields() {
	}

	/**
	 * One quota policy item.
	 *
	 * @param name the policy name
	 * @param quota {@code q}
	 * @param unit {@code qu}, or {@code null} for the default, requests
	 * @param window {@code w} in seconds, or {@code null}
	 * @param partitionKey {@code pk}, or {@code null}
	 */
	public record Policy(String name, long quota, @Nullable String unit, @Nullable Long window,
			@Nullable ByteBuffer partitionKey) {
	}

	/**
	 * One service limit item.
	 *
	 * @param name the policy name
	 * @param remaining {@code r}
	 * @param reset {@code t} in seconds, or {@code null}
	 * @param partitionKey {@code pk}, or {@code null}
	 */
	public record ServiceLimit(String name, long remaining, @Nullable Long reset, @Nullable ByteBuffer partitionKey) {
	}

	/**
	 * Parses a {@code RateLimit-Policy} field.
	 * @param field the field value
	 * @return its policies
	 */
	public static List<Policy> policies(String field) {
		List<Policy> policies = new ArrayList<>();
		for (Item<?> item : items(field)) {
			Parameters parameters = item.getParams();
			assertThat(parameters).as("q is required").containsKey("q");
			Long window = integer(parameters, "w");
			assertThat(window).as("w is a non-zero integer")
				.satisfiesAnyOf((w) -> assertThat(w).isNull(), (w) -> assertThat(w).isPositive());
			Item<?> unit = parameters.get("qu");
			if (unit != null) {
				assertThat(unit).as("qu is a string").isInstanceOf(StringItem.class);
			}
			Long quota = integer(parameters, "q");
			assertThat(quota).isNotNull();
			policies.add(new Policy(((StringItem) item).get(), quota, (unit != null) ? ((StringItem) unit).get() : null,
					window, bytes(parameters)));
		}
		return policies;
	}

	/**
	 * Parses a {@code RateLimit} field.
	 * @param field the field value
	 * @return its service limits
	 */
	public static List<ServiceLimit> serviceLimits(String field) {
		List<ServiceLimit> limits = new ArrayList<>();
		for (Item<?> item : items(field)) {
			Parameters parameters = item.getParams();
			assertThat(parameters).as("r is required").containsKey("r");
			Long remaining = integer(parameters, "r");
			assertThat(remaining).isNotNull();
			limits.add(new ServiceLimit(((StringItem) item).get(), remaining, integer(parameters, "t"),
					bytes(parameters)));
		}
		return limits;
	}

	private static List<Item<?>> items(String field) {
		List<Item<?>> items = new ArrayList<>();
		for (ListElement<?> element : Parser.parseList(field).get()) {
			assertThat(element).as("every member is an item whose value is a string").isInstanceOf(StringItem.class);
			items.add((Item<?>) element);
		}
		assertThat(items).as("the list is not empty").isNotEmpty();
		return items;
	}

	private static @Nullable Long integer(Parameters parameters, String name) {
		Item<?> item = parameters.get(name);
		if (item == null) {
			return null;
		}
		assertThat(item).as("%s is an integer", name).isInstanceOf(IntegerItem.class);
		long value = ((IntegerItem) item).getAsLong();
		assertThat(value).as("%s is not negative", name).isNotNegative();
		return value;
	}

	private static @Nullable ByteBuffer bytes(Parameters parameters) {
		Item<?> item = parameters.get("pk");
		if (item == null) {
			return null;
		}
		assertThat(item).as("pk is a byte sequence").isInstanceOf(ByteSequenceItem.class);
		return ((ByteSequenceItem) item).get();
	}

}
