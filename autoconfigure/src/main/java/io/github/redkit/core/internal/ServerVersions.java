package io.github.redkit.core.internal;

import java.util.Properties;
import java.util.function.BiPredicate;

import org.jspecify.annotations.Nullable;

/**
 * What a server's {@code INFO server} says it can do: Valkey names itself with
 * {@code valkey_version} (and answers an old {@code redis_version}); a cluster's
 * {@code INFO} prefixes each node's fields with its address, and every node must have
 * what is used.
 */
public final class ServerVersions {

	private static final String REDIS = "redis_version";

	private static final String VALKEY = "valkey_version";

	private ServerVersions() {
	}

	/**
	 * Whether every node takes {@code SET key value IFEQ expected}: Valkey 8.1 and Redis
	 * 8.4 onwards.
	 * @param info the {@code INFO server} fields
	 * @return whether every node named takes it; {@code false} when none is named
	 */
	static boolean setIfEqual(Properties info) {
		return everyNode(info, (valkey, redis) -> (valkey != null) ? atLeast(valkey, 8, 1) : atLeast(redis, 8, 4));
	}

	/**
	 * Whether every node takes {@code DELIFEQ key value}: Valkey 9.0 onwards (Redis names
	 * its own {@code DELEX key IFEQ value}, which Redkit does not send).
	 * @param info the {@code INFO server} fields
	 * @return whether every node named takes it; {@code false} when none is named
	 */
	static boolean deleteIfEqual(Properties info) {
		return everyNode(info, (valkey, redis) -> valkey != null && atLeast(valkey, 9, 0));
	}

	/**
	 * Whether every node takes {@code XACKDEL}: Redis 8.2 onwards (not Valkey).
	 * @param info the {@code INFO server} fields
	 * @return whether every node named takes it; {@code false} when none is named
	 */
	static boolean ackDelete(Properties info) {
		return everyNode(info, (valkey, redis) -> valkey == null && atLeast(redis, 8, 2));
	}

	/**
	 * The version a node reports when it is older than a version: Valkey reports the
	 * Redis version it forked from as {@code redis_version}, which is what its commands
	 * are.
	 * @param info the {@code INFO server} fields
	 * @param major the major version needed
	 * @param minor the minor version needed
	 * @return the {@code redis_version} of the first node below it, or {@code null} when
	 * every node named has it
	 */
	public static @Nullable String olderThan(Properties info, int major, int minor) {
		for (String name : info.stringPropertyNames()) {
			if (name.endsWith(REDIS) && !atLeast(info.getProperty(name), major, minor)) {
				return info.getProperty(name);
			}
		}
		return null;
	}

	private static boolean everyNode(Properties info, BiPredicate<@Nullable String, @Nullable String> takes) {
		boolean any = false;
		for (String name : info.stringPropertyNames()) {
			if (!name.endsWith(REDIS)) {
				continue;
			}
			String node = name.substring(0, name.length() - REDIS.length());
			if (!takes.test(info.getProperty(node + VALKEY), info.getProperty(name))) {
				return false;
			}
			any = true;
		}
		return any;
	}

	static boolean atLeast(@Nullable String version, int major, int minor) {
		if (version == null) {
			return false;
		}
		String[] parts = version.trim().split("\\.");
		try {
			int actualMajor = Integer.parseInt(parts[0]);
			int actualMinor = (parts.length > 1) ? Integer.parseInt(parts[1]) : 0;
			return actualMajor > major || (actualMajor == major && actualMinor >= minor);
		}
		catch (NumberFormatException ex) {
			return false;
		}
	}

}
