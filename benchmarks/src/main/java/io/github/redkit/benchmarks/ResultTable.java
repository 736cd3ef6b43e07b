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
				+ "| round trips/op | Redis CPU µs/op |\n");
		table.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
		for (Result r : results) {
			table.append(
					String.format(Locale.ROOT, "| %s | %s | %d | %,.0f | %.2f | %.0f | %.0f | %.2f | %.2f | %.1f |%n",
							r.capability(), r.contender(), r.threads(), r.opsPerSecond(), r.ratio(), r.p50Micros(),
							r.p99Micros(), r.commandsPerOp(), r.roundTripsPerOp(), r.redisCpuMicrosPerOp()));
		}
		return table.toString();
	}

}
