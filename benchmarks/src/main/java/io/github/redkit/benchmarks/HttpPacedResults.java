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
		StringBuilder table = new StringBuilder();
		table.append("| server | endpoint | slices | requests/s | wrk p99 ms median (min–max) "
				+ "| wrk p99 added ms, paired median (min–max) | in server p50 ms | in server p99 ms "
				+ "| in server p99.9 ms | in server p99 added ms; paired median (min–max) "
				+ "| advised method p50 / p99 ms | Redis round trip p50 / p99 ms | failed |\n");
		table.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
		for (HttpPacedResult r : results) {
			boolean reference = r.endpoint() == HttpEndpoint.PLAIN;
			table.append(String.format(Locale.ROOT,
					"| %s | %s | %d | %,.0f | %s | %s | %s | %s | %s | %s | %s | %s | %d |%n", r.server().description(),
					r.endpoint().description(), r.slices(), r.requestsPerSecond(), spread(r.wrkP99Micros()),
					reference ? "–" : spread(r.wrkP99AddedMicros()), millis(r.serviceP50Micros()),
					millis(r.serviceP99Micros()), millis(r.serviceP999Micros()),
					reference ? "–"
							: millis(r.serviceP99AddedMicros()) + "; paired " + spread(r.serviceP99AddedPairedMicros()),
					millis(r.advisedP50Micros()) + " / " + millis(r.advisedP99Micros()),
					Double.isNaN(r.redisRoundTripP50Micros()) ? "–"
							: millis(r.redisRoundTripP50Micros()) + " / " + millis(r.redisRoundTripP99Micros()),
					r.failed()));
		}
		return table.toString();
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
		return String.format(Locale.ROOT, "%.2f (%.2f–%.2f)", micros.median() / 1000, micros.min() / 1000,
				micros.max() / 1000);
	}

}
