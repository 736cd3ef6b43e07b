package io.github.redkit.sample.web;

import java.util.regex.Pattern;

/**
 * Input checks shared by the controllers: every refusal is a 400 before anything is
 * written.
 */
public final class Validation {

	private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_]{3,20}");

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

	public static String required(String field, String value, int maxLength) {
		if (value == null || value.isBlank()) {
			throw ApiException.badRequest("'" + field + "' is required");
		}
		if (value.codePointCount(0, value.length()) > maxLength) {
			throw ApiException.badRequest("'" + field + "' is longer than " + maxLength + " characters");
		}
		return value;
	}

	public static long positive(String field, Long value, long max) {
		if (value == null || value <= 0 || value > max) {
			throw ApiException.badRequest("'" + field + "' must be between 1 and " + max);
		}
		return value;
	}

}
