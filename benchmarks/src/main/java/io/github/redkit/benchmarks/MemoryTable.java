package io.github.redkit.benchmarks;

import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * Markdown tables of the memory benchmark: bytes per identifier beside the smallest peer
 * of the same windows, what each contender stores, and whether the default algorithm is
 * at or below the smallest peer.
 */
final class MemoryTable {

	private MemoryTable() {
	}

	static String markdown(List<MemoryResult> results) {
		StringBuilder table = new StringBuilder();
		table.append("| windows | contender | keys / identifier | bytes / identifier, 1 call ")
			.append("| × smallest peer | bytes / identifier, ")
			.append(MemoryBenchmark.FULL_CALLS)
			.append(" calls | × smallest peer | identifiers live at the end (1 / ")
			.append(MemoryBenchmark.FULL_CALLS)
			.append(" calls) |\n|---|---|---:|---:|---:|---:|---:|---:|\n");
		for (MemoryResult result : results) {
			table.append(String.format("| %s | %s | %d | %,.0f | %s | %,.0f | %s | %s / %s |%n", result.windows(),
					result.contender(), result.wholeLimit().keysPerIdentifier(), result.oneCall().bytesPerIdentifier(),
					ratio(results, result, MemoryResult::oneCall), result.wholeLimit().bytesPerIdentifier(),
					ratio(results, result, MemoryResult::wholeLimit), percent(result.oneCall()),
					percent(result.wholeLimit())));
		}
		table.append("\n| windows | contender | after 1 call | after ")
			.append(MemoryBenchmark.FULL_CALLS)
			.append(" calls |\n|---|---|---|---|\n");
		for (MemoryResult result : results) {
			String full = result.wholeLimit().stores().equals(result.oneCall().stores()) ? "same"
					: result.wholeLimit().stores();
			table.append(String.format("| %s | %s | %s | %s |%n", result.windows(), result.contender(),
					result.oneCall().stores(), full));
		}
		table.append('\n');
		for (MemoryResult result : results) {
			if (result.isRedkit() && result.contender().endsWith("(default)")) {
				table.append(verdict(results, result, MemoryResult::oneCall, "1 call"))
					.append(verdict(results, result, MemoryResult::wholeLimit, MemoryBenchmark.FULL_CALLS + " calls"));
			}
		}
		return table.toString();
	}

	private static String verdict(List<MemoryResult> results, MemoryResult result,
			Function<MemoryResult, MemoryResult.Measurement> measurement, String phase) {
		Optional<MemoryResult> peer = smallestPeer(results, result, measurement);
		if (peer.isEmpty()) {
			return "";
		}
		double own = measurement.apply(result).bytesPerIdentifier();
		double theirs = measurement.apply(peer.get()).bytesPerIdentifier();
		return String.format("%s, %s, %s: %,.0f B per identifier against %,.0f B for %s, the smallest peer: %s.%n",
				result.contender(), result.windows(), phase, own, theirs, peer.get().contender(),
				(own <= theirs) ? "at or below it"
						: String.format("above it by %,.0f B (%.0f %%)", own - theirs, 100 * (own - theirs) / theirs));
	}

	private static String ratio(List<MemoryResult> results, MemoryResult result,
			Function<MemoryResult, MemoryResult.Measurement> measurement) {
		return smallestPeer(results, result, measurement)
			.map((peer) -> String.format("%.2f",
					measurement.apply(result).bytesPerIdentifier() / measurement.apply(peer).bytesPerIdentifier()))
			.orElse("–");
	}

	private static Optional<MemoryResult> smallestPeer(List<MemoryResult> results, MemoryResult result,
			Function<MemoryResult, MemoryResult.Measurement> measurement) {
		return results.stream()
			.filter((other) -> !other.isRedkit() && other.windows().equals(result.windows()))
			.min((a, b) -> Double.compare(measurement.apply(a).bytesPerIdentifier(),
					measurement.apply(b).bytesPerIdentifier()));
	}

	private static String percent(MemoryResult.Measurement measurement) {
		return String.format("%.0f %%", 100 * measurement.liveIdentifiers() / measurement.identifiers());
	}

}
