package io.github.redkit.benchmarks;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.ToDoubleFunction;

/**
 * Turns the HTTP benchmark's slices into rows, and rows into the Markdown table kept in
 * {@code docs/benchmarks.md}.
 */
final class HttpResults {

	private HttpResults() {
	}

	static List<HttpResult> of(HttpServerKind server, Map<HttpEndpoint, List<HttpBenchmark.Slice>> slices,
			Map<HttpEndpoint, Double> roundTrips, int rounds) {
		List<HttpBenchmark.Slice> plain = Objects.requireNonNull(slices.get(HttpEndpoint.PLAIN), "the plain endpoint");
		double plainCpu = perRequest(plain, HttpBenchmark.Slice::jvmCpuNanos) / 1000;
		double plainAllocated = perRequest(plain, HttpBenchmark.Slice::allocatedBytes);
		List<HttpResult> results = new ArrayList<>();
		slices.forEach((endpoint, measured) -> {
			double[] ratios = new double[measured.size()];
			for (int round = 0; round < measured.size(); round++) {
				ratios[round] = measured.get(round).saturated().requestsPerSecond()
						/ plain.get(round).saturated().requestsPerSecond();
			}
			double cpu = perRequest(measured, HttpBenchmark.Slice::jvmCpuNanos) / 1000;
			double allocated = perRequest(measured, HttpBenchmark.Slice::allocatedBytes);
			results.add(new HttpResult(server, endpoint, rounds,
					HttpResult.Spread.of(values(measured, (slice) -> slice.saturated().requestsPerSecond())),
					HttpResult.Spread.of(ratios), median(measured, (slice) -> slice.saturated().p50Micros()),
					median(measured, (slice) -> slice.saturated().p99Micros()),
					perRequest(measured, HttpBenchmark.Slice::commands), roundTrips.getOrDefault(endpoint, Double.NaN),
					perRequest(measured, HttpBenchmark.Slice::redisCpuMicros), cpu, cpu - plainCpu, allocated,
					allocated - plainAllocated, measured.stream().mapToLong(HttpBenchmark.Slice::failed).sum()));
		});
		return results;
	}

	static String markdown(List<HttpResult> results) {
		StringBuilder table = new StringBuilder();
		table.append("| server | endpoint | requests/s median (min–max) | × plain median (min–max) | p50 ms | p99 ms "
				+ "| Redis commands/request "
				+ "| round trips/request | Redis CPU µs/request | JVM CPU µs/request | JVM CPU added µs/request "
				+ "| allocated KB/request | allocated added KB/request | failed |\n");
		table.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
		for (HttpResult r : results) {
			boolean reference = r.endpoint() == HttpEndpoint.PLAIN;
			table.append(String.format(Locale.ROOT,
					"| %s | %s | %,.0f (%,.0f–%,.0f) | %s | %.2f | %.2f | %.2f | %.2f | %.1f | %.0f | %s | %.1f | %s | %d |%n",
					r.server().description(), r.endpoint().description(), r.requestsPerSecond().median(),
					r.requestsPerSecond().min(), r.requestsPerSecond().max(),
					reference ? "1.00"
							: String.format(Locale.ROOT, "%.2f (%.2f–%.2f)", r.ratio().median(), r.ratio().min(),
									r.ratio().max()),
					r.p50Micros() / 1000, r.p99Micros() / 1000, r.commandsPerRequest(), r.roundTripsPerRequest(),
					r.redisCpuMicrosPerRequest(), r.jvmCpuMicrosPerRequest(),
					reference ? "–" : String.format(Locale.ROOT, "%.0f", r.jvmCpuAddedMicros()),
					r.allocatedBytesPerRequest() / 1024,
					reference ? "–" : String.format(Locale.ROOT, "%.1f", r.allocatedAddedBytes() / 1024), r.failed()));
		}
		return table.toString();
	}

	private static double[] values(List<HttpBenchmark.Slice> slices, ToDoubleFunction<HttpBenchmark.Slice> value) {
		return slices.stream().mapToDouble(value).toArray();
	}

	private static double median(List<HttpBenchmark.Slice> slices, ToDoubleFunction<HttpBenchmark.Slice> value) {
		double[] sorted = values(slices, value);
		Arrays.sort(sorted);
		return HttpResult.Spread.median(sorted);
	}

	// over every round's requests together
	private static double perRequest(List<HttpBenchmark.Slice> slices, ToDoubleFunction<HttpBenchmark.Slice> total) {
		double sum = slices.stream().mapToDouble(total).sum();
		long requests = slices.stream().mapToLong(HttpBenchmark.Slice::requests).sum();
		return sum / requests;
	}

}
