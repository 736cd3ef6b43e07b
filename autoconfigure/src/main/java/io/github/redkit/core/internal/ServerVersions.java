package io.github.redkit.core.internal;

import java.util.Properties;

import org.jspecify.annotations.Nullable;

/**
 * What a server's {@code INFO server} says it can do: Valkey names itself with
 * {@code valkey_version} (and answers an old {@code redis_version}); a cluster's
 * {@code INFO} prefixes each node's fields with its address, and every node must have
 * what is used.
 */
final class ServerVersions {

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
		boolean any = false;
		for (String name : info.stringPropertyNames()) {
			if (!name.endsWith(REDIS)) {
				continue;
			}
			String node = name.substring(0, name.length() - REDIS.length());
			String valkey = info.getProperty(node + VALKEY);
			boolean takes = (valkey != null) ? atLeast(valkey, 8, 1) : atLeast(info.getProperty(name), 8, 4);
			if (!takes) {
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
