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
		// only a run with a contender that keeps records per operation shows their memory
		boolean records = results.stream().anyMatch((r) -> !Double.isNaN(r.recordUsageBytes()));
		StringBuilder table = new StringBuilder();
		table.append("| capability | contender | threads | ops/s | × reference | p50 µs | p99 µs | Redis commands/op "
				+ "| round trips/op | Redis CPU µs/op | Redis script µs/op | client CPU µs/op |");
		table.append(records ? " MEMORY USAGE B/record | used_memory B/record |\n" : "\n");
		table.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
		table.append(records ? "---:|---:|\n" : "\n");
		for (Result r : results) {
			table.append(String.format(Locale.ROOT,
					"| %s | %s | %d | %,.0f | %.2f | %.0f | %.0f | %.2f | %.2f | %.1f | %s | %.1f |", r.capability(),
					r.contender(), r.threads(), r.opsPerSecond(), r.ratio(), r.p50Micros(), r.p99Micros(),
					r.commandsPerOp(), r.roundTripsPerOp(), r.redisCpuMicrosPerOp(), scripts(r),
					r.clientCpuMicrosPerOp()));
			table.append(
					records ? " " + bytes(r.recordUsageBytes()) + " | " + bytes(r.recordMemoryBytes()) + " |\n" : "\n");
		}
		return table.toString();
	}

	/**
	 * The memory of a record kept per operation, for the console line.
	 * @param result the result
	 * @return empty when the contender keeps none
	 */
	static String keptRecords(Result result) {
		if (Double.isNaN(result.recordUsageBytes())) {
			return "";
		}
		return "  record " + bytes(result.recordUsageBytes()) + " B (MEMORY USAGE), "
				+ bytes(result.recordMemoryBytes()) + " B (used_memory)";
	}

	private static String bytes(double bytes) {
		return Double.isNaN(bytes) ? "–" : String.format(Locale.ROOT, "%.0f", bytes);
	}

	// a contender that runs no script has no script time to show
	private static String scripts(Result result) {
		return (result.redisScriptMicrosPerOp() > 0)
				? String.format(Locale.ROOT, "%.1f", result.redisScriptMicrosPerOp()) : "–";
	}

}
