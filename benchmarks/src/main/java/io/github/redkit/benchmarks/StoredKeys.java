package io.github.redkit.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import io.github.redkit.testsupport.RespClient;

/**
 * Describes the keys one identifier left in an otherwise empty database: name (the
 * identifier shown as {@code <id>}), type, encoding, size, expiry and
 * {@code MEMORY USAGE}.
 */
final class StoredKeys {

	private StoredKeys() {
	}

	static String describe(RespClient admin, String identifier) {
		List<String> keys = new ArrayList<>();
		String cursor = "0";
		do {
			List<?> reply = (List<?>) call(admin, "SCAN", cursor, "COUNT", "1000");
			cursor = reply.get(0).toString();
			((List<?>) reply.get(1)).forEach((key) -> keys.add(key.toString()));
		}
		while (!cursor.equals("0"));
		keys.sort(null);
		List<String> descriptions = new ArrayList<>();
		for (String key : keys) {
			descriptions.add(describeKey(admin, key, identifier));
		}
		return String.join("; ", descriptions);
	}

	/**
	 * Sends a command whose reply is never nil.
	 * @param admin the client
	 * @param command the command and its arguments
	 * @return the reply
	 */
	static Object call(RespClient admin, String... command) {
		return Objects.requireNonNull(admin.call(command), () -> "Nil reply to " + String.join(" ", command));
	}

	private static String describeKey(RespClient admin, String key, String identifier) {
		String type = admin.callForString("TYPE", key);
		String encoding = admin.callForString("OBJECT", "ENCODING", key);
		String size = switch (type) {
			case "string" -> admin.call("STRLEN", key) + " B";
			case "hash" -> admin.call("HLEN", key) + " fields";
			case "zset" -> admin.call("ZCARD", key) + " members";
			case "list" -> admin.call("LLEN", key) + " items";
			case "set" -> admin.call("SCARD", key) + " members";
			default -> "?";
		};
		long ttl = (Long) call(admin, "PTTL", key);
		Object usage = admin.call("MEMORY", "USAGE", key, "SAMPLES", "0");
		return "`" + key.replace(identifier, "<id>") + "` " + type + " (" + encoding + ", " + size + ", "
				+ ((ttl >= 0) ? "TTL" : "no TTL") + ", MEMORY USAGE " + usage + " B)";
	}

}
