package io.github.redkit.benchmarks;

import java.util.List;
import java.util.Locale;

/**
 * Prints results as the Markdown table kept in {@code docs/benchmarks.md}.
 */
final class ResultTable {

	private ResultTable() {
	}

	static String markdown(List<Result> results) {
		StringBuilder table = new StringBuilder();
		table.append("| capability | contender | threads | ops/s | × reference | p50 µs | p99 µs | Redis commands/op "
				+ "| round trips/op | Redis CPU µs/op | Redis script µs/op |\n");
		table.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
		for (Result r : results) {
			table.append(String.format(Locale.ROOT,
					"| %s | %s | %d | %,.0f | %.2f | %.0f | %.0f | %.2f | %.2f | %.1f | %s |%n", r.capability(),
					r.contender(), r.threads(), r.opsPerSecond(), r.ratio(), r.p50Micros(), r.p99Micros(),
					r.commandsPerOp(), r.roundTripsPerOp(), r.redisCpuMicrosPerOp(), scripts(r)));
		}
		return table.toString();
	}

	// a contender that runs no script has no script time to show
	private static String scripts(Result result) {
		return (result.redisScriptMicrosPerOp() > 0)
				? String.format(Locale.ROOT, "%.1f", result.redisScriptMicrosPerOp()) : "–";
	}

}
