package io.github.redkit.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.ToDoubleFunction;

import org.HdrHistogram.Histogram;

/**
 * Turns the HTTP benchmark's slices below saturation into rows, and rows into the
 * Markdown table kept in {@code docs/benchmarks.md}.
 */
final class HttpPacedResults {

	private static final HttpTable<HttpPacedResult> TABLE = new HttpTable<HttpPacedResult>()
		.column("slices", (r) -> String.valueOf(r.slices()))
		.column("requests/s", (r) -> HttpTable.format("%,.0f", r.requestsPerSecond()))
		.column("wrk p99 ms median (min–max)", (r) -> spread(r.wrkP99Micros()))
		.added("wrk p99 added ms, paired median (min–max)", (r) -> spread(r.wrkP99AddedMicros()))
		.column("in server p50 ms", (r) -> millis(r.serviceP50Micros()))
		.column("in server p99 ms", (r) -> millis(r.serviceP99Micros()))
		.column("in server p99.9 ms", (r) -> millis(r.serviceP999Micros()))
		.added("in server p99 added ms; paired median (min–max)",
				(r) -> millis(r.serviceP99AddedMicros()) + "; paired " + spread(r.serviceP99AddedPairedMicros()))
		.column("advised method p50 / p99 ms",
				(r) -> millis(r.advisedP50Micros()) + " / " + millis(r.advisedP99Micros()))
		.column("Redis round trip p50 / p99 ms",
				(r) -> Double.isNaN(r.redisRoundTripP50Micros()) ? "–"
						: millis(r.redisRoundTripP50Micros()) + " / " + millis(r.redisRoundTripP99Micros()))
		.column("failed", (r) -> String.valueOf(r.failed()));

	private HttpPacedResults() {
	}

	static List<HttpPacedResult> of(HttpServerKind server, Map<HttpEndpoint, List<HttpBenchmark.PacedSlice>> slices) {
		List<HttpBenchmark.PacedSlice> plain = Objects.requireNonNull(slices.get(HttpEndpoint.PLAIN),
				"the plain endpoint");
		InServerTimes.Sample plainTotal = total(plain);
		List<HttpPacedResult> results = new ArrayList<>();
		slices.forEach((endpoint, measured) -> {
			InServerTimes.Sample all = total(measured);
			double requests = measured.stream().mapToLong((slice) -> slice.run().requests()).sum();
			double seconds = measured.stream().mapToLong((slice) -> slice.run().micros()).sum() / 1e6;
			results.add(new HttpPacedResult(server, endpoint, measured.size(), requests / seconds,
					HttpResult.Spread.of(values(measured, (slice) -> slice.run().p99Micros())),
					HttpResult.Spread.of(paired(measured, plain, (slice) -> slice.run().p99Micros())),
					micros(all.service(), 50), micros(all.service(), 99), micros(all.service(), 99.9),
					micros(all.service(), 99) - micros(plainTotal.service(), 99),
					HttpResult.Spread.of(paired(measured, plain, (slice) -> micros(slice.times().service(), 99))),
					micros(all.advised(), 50), micros(all.advised(), 99), micros(all.redisRoundTrip(), 50),
					micros(all.redisRoundTrip(), 99),
					measured.stream().mapToLong(HttpBenchmark.PacedSlice::failed).sum()));
		});
		return results;
	}

	static String markdown(List<HttpPacedResult> results) {
		return TABLE.markdown(results);
	}

	private static InServerTimes.Sample total(List<HttpBenchmark.PacedSlice> slices) {
		InServerTimes.Sample total = InServerTimes.Sample.empty();
		slices.forEach((slice) -> slice.times().addTo(total));
		return total;
	}

	// slice k of the row minus slice k of the plain endpoint: the same pass
	private static double[] paired(List<HttpBenchmark.PacedSlice> row, List<HttpBenchmark.PacedSlice> plain,
			ToDoubleFunction<HttpBenchmark.PacedSlice> value) {
		double[] differences = new double[Math.min(row.size(), plain.size())];
		for (int i = 0; i < differences.length; i++) {
			differences[i] = value.applyAsDouble(row.get(i)) - value.applyAsDouble(plain.get(i));
		}
		return differences;
	}

	private static double[] values(List<HttpBenchmark.PacedSlice> slices,
			ToDoubleFunction<HttpBenchmark.PacedSlice> value) {
		return slices.stream().mapToDouble(value).toArray();
	}

	static double micros(Histogram nanos, double percentile) {
		return (nanos.getTotalCount() > 0) ? nanos.getValueAtPercentile(percentile) / 1000.0 : Double.NaN;
	}

	private static String millis(double micros) {
		return Double.isNaN(micros) ? "–" : String.format(Locale.ROOT, "%.2f", micros / 1000);
	}

	private static String spread(HttpResult.Spread micros) {
		return HttpTable.spread("%.2f", micros, 1000);
	}

}
