package io.github.redkit.benchmarks;

import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import io.github.redkit.testsupport.RedisServer;

/**
 * What each command cost Redis ({@code INFO commandstats}: calls and {@code usec}, summed
 * over every node), so that a script's time can be split over the commands it runs: a
 * script's own line counts them all again, the commands' lines say which.
 *
 * @param costs per command: calls, microseconds
 */
record CommandCost(Map<String, long[]> costs) {

	static final CommandCost NONE = new CommandCost(Map.of());

	static CommandCost read(RedisServer redis) {
		Map<String, long[]> costs = new TreeMap<>();
		for (Object reply : redis.callOnEveryNode("INFO", "commandstats")) {
			reply.toString().lines().filter((line) -> line.startsWith("cmdstat_")).forEach((line) -> {
				long[] cost = new long[2];
				for (String field : line.substring(line.indexOf(':') + 1).split(",")) {
					if (field.startsWith("calls=")) {
						cost[0] = Long.parseLong(field.substring("calls=".length()));
					}
					else if (field.startsWith("usec=")) {
						cost[1] = Long.parseLong(field.substring("usec=".length()));
					}
				}
				costs.merge(line.substring("cmdstat_".length(), line.indexOf(':')), cost, CommandCost::sum);
			});
		}
		return new CommandCost(costs);
	}

	CommandCost since(CommandCost earlier) {
		Map<String, long[]> difference = new TreeMap<>();
		this.costs.forEach((name, cost) -> {
			long[] before = earlier.costs.getOrDefault(name, new long[2]);
			long calls = cost[0] - before[0];
			if (calls > 0 && !name.equals("info")) {
				difference.put(name, new long[] { calls, cost[1] - before[1] });
			}
		});
		return new CommandCost(difference);
	}

	CommandCost plus(CommandCost other) {
		Map<String, long[]> sum = new TreeMap<>(this.costs);
		other.costs.forEach((name, cost) -> sum.merge(name, cost, CommandCost::sum));
		return new CommandCost(sum);
	}

	/**
	 * One line per command: calls and microseconds per unit of work.
	 * @param units the units of work done
	 * @return the lines, indented
	 */
	String perUnit(double units) {
		StringBuilder lines = new StringBuilder();
		this.costs.forEach((name, cost) -> lines
			.append(String.format(Locale.ROOT, "      %-14s %6.3f calls  %7.2f us  (%.2f us/call)%n", name,
					cost[0] / units, cost[1] / units, (double) cost[1] / cost[0])));
		return lines.toString();
	}

	private static long[] sum(long[] a, long[] b) {
		return new long[] { a[0] + b[0], a[1] + b[1] };
	}

}
