package io.github.redkit.sample.web;

import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * Input checks shared by the controllers: every refusal is a 400 before anything is
 * written.
 */
public final class Validation {

	private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_]{3,20}");

	private static final Pattern ID = Pattern.compile("[A-Za-z0-9_-]{1,40}");

	private Validation() {
	}

	public static String name(String name) {
		if (name == null || name.isBlank()) {
			throw ApiException.badRequest("'name' is required");
		}
		if (!NAME.matcher(name).matches()) {
			throw ApiException.badRequest("'name' must be 3 to 20 letters, digits or '_'");
		}
		return name;
	}

	/**
	 * An identifier from a path or body (campaigns, auctions).
	 * @param field the field name for the message
	 * @param id the value
	 * @return the id
	 */
	public static String id(String field, String id) {
		if (id == null || !ID.matcher(id).matches()) {
			throw ApiException.badRequest("'" + field + "' must be 1 to 40 letters, digits, '_' or '-'");
		}
		return id;
	}

	public static String required(String field, @Nullable String value, int maxLength) {
		if (value == null || value.isBlank()) {
			throw ApiException.badRequest("'" + field + "' is required");
		}
		if (value.codePointCount(0, value.length()) > maxLength) {
			throw ApiException.badRequest("'" + field + "' is longer than " + maxLength + " characters");
		}
		return value;
	}

	public static long positive(String field, @Nullable Long value, long max) {
		if (value == null || value <= 0 || value > max) {
			throw ApiException.badRequest("'" + field + "' must be between 1 and " + max);
		}
		return value;
	}

}
