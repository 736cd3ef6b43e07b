package io.github.redkit.benchmarks;

import io.github.redkit.test.RedisServer;

/**
 * The CPU time the Redis server processes have used ({@code INFO cpu}: user + system,
 * summed over every node), so that a benchmark can tell what a decision costs Redis
 * itself, the cost that limits a shared Redis at scale.
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

}
