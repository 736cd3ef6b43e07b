package io.github.redkit.benchmarks;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.ToDoubleFunction;

/**
 * Turns the HTTP benchmark's slices into rows, and rows into the Markdown table kept in
 * {@code docs/benchmarks.md}.
 */
final class HttpResults {

	private static final HttpTable<HttpResult> TABLE = new HttpTable<HttpResult>()
		.column("requests/s median (min–max)", (r) -> HttpTable.spread("%,.0f", r.requestsPerSecond(), 1))
		.column("× plain median (min–max)",
				(r) -> (r.endpoint() == HttpEndpoint.PLAIN) ? "1.00" : HttpTable.spread("%.2f", r.ratio(), 1))
		.column("p50 ms", (r) -> HttpTable.format("%.2f", r.p50Micros() / 1000))
		.column("p99 ms", (r) -> HttpTable.format("%.2f", r.p99Micros() / 1000))
		.column("Redis commands/request", (r) -> HttpTable.format("%.2f", r.commandsPerRequest()))
		.column("round trips/request", (r) -> HttpTable.format("%.2f", r.roundTripsPerRequest()))
		.column("Redis CPU µs/request", (r) -> HttpTable.format("%.1f", r.redisCpuMicrosPerRequest()))
		.column("JVM CPU µs/request", (r) -> HttpTable.format("%.0f", r.jvmCpuMicrosPerRequest()))
		.added("JVM CPU added µs/request", (r) -> HttpTable.format("%.0f", r.jvmCpuAddedMicros()))
		.column("allocated KB/request", (r) -> HttpTable.format("%.1f", r.allocatedBytesPerRequest() / 1024))
		.added("allocated added KB/request", (r) -> HttpTable.format("%.1f", r.allocatedAddedBytes() / 1024))
		.column("failed", (r) -> String.valueOf(r.failed()));

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
		return TABLE.markdown(results);
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
