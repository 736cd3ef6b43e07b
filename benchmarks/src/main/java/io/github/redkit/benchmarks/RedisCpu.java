package io.github.redkit.benchmarks;

import io.github.redkit.testsupport.RedisServer;

/**
 * The CPU time the Redis server processes have used ({@code INFO cpu}: user + system,
 * summed over every node), so that a benchmark can tell what a decision costs Redis
 * itself, the cost that limits it at scale; and the part of it spent inside scripts
 * ({@code INFO commandstats}: {@code usec}, that is {@code usec_per_call} times
 * {@code calls}), without parsing, replies and Redis's own periodic work.
 */
final class RedisCpu {

	private RedisCpu() {
	}

	/**
	 * The CPU time used so far, in microseconds.
	 * @param redis the server
	 * @return the microseconds
	 */
	static long micros(RedisServer redis) {
		double seconds = 0;
		for (Object reply : redis.callOnEveryNode("INFO", "cpu")) {
			for (String line : reply.toString().split("\r?\n")) {
				if (line.startsWith("used_cpu_user:") || line.startsWith("used_cpu_sys:")) {
					seconds += Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());
				}
			}
		}
		return Math.round(seconds * 1_000_000);
	}

	/**
	 * The time spent running scripts so far ({@code EVAL}, {@code EVALSHA},
	 * {@code FCALL}: each one's time includes the commands it runs, which commandstats
	 * counts again on their own lines, so only the scripts are summed), in microseconds.
	 * @param redis the server
	 * @return the microseconds
	 */
	static long scriptMicros(RedisServer redis) {
		long micros = 0;
		for (Object reply : redis.callOnEveryNode("INFO", "commandstats")) {
			for (String line : reply.toString().split("\r?\n")) {
				if (line.startsWith("cmdstat_eval") || line.startsWith("cmdstat_fcall")) {
					for (String field : line.substring(line.indexOf(':') + 1).split(",")) {
						if (field.startsWith("usec=")) {
							micros += Long.parseLong(field.substring("usec=".length()));
						}
					}
				}
			}
		}
		return micros;
	}

}
