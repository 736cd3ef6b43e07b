package io.github.redkit.benchmarks;

import java.awt.Color;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToDoubleFunction;

import org.jspecify.annotations.Nullable;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.BitmapEncoder.BitmapFormat;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.Styler;

/**
 * The cost curves of a run as PNG charts (XChart), for {@code docs/images/}: one bar per
 * contender and thread count of the suites that have a curve worth drawing, the
 * contenders in the suite's order.
 */
final class Charts {

	/**
	 * The suites drawn, with the file and the measure.
	 */
	static final Map<String, Curve> CURVES = Map.of("hot-key",
			new Curve("hot-key-throughput", "decisions per second", Result::opsPerSecond), "ratelimit-cost",
			new Curve("ratelimit-cost-redis-cpu", "Redis CPU µs per decision", Result::redisCpuMicrosPerOp),
			"lock-contention", new Curve("lock-hand-over", "hand-overs per second", Result::opsPerSecond));

	private Charts() {
	}

	/**
	 * Writes the chart of a suite's results, if it has one.
	 * @param directory where the PNG goes
	 * @param suiteName the suite's name on the command line
	 * @param results the suite's results
	 * @return the file written, or {@code null}
	 */
	static @Nullable Path write(Path directory, String suiteName, List<Result> results) {
		Curve curve = CURVES.get(suiteName);
		if (curve == null || results.isEmpty()) {
			return null;
		}
		CategoryChart chart = chart(results.get(0).capability(), curve.measure());
		Map<Integer, List<Result>> byThreads = new TreeMap<>();
		results.forEach((result) -> byThreads.computeIfAbsent(result.threads(), (t) -> new ArrayList<>()).add(result));
		byThreads.forEach((threads, measured) -> chart.addSeries(threads + " threads",
				measured.stream().map(Result::contender).toList(),
				measured.stream().map((result) -> curve.value().applyAsDouble(result)).toList()));
		return save(chart, directory, curve.file());
	}

	/**
	 * Writes the charts of the HTTP benchmark: requests/s relative to the plain endpoint,
	 * and the JVM allocation per request that Redkit adds, one bar per endpoint and
	 * server.
	 * @param directory where the PNGs go
	 * @param results the rows
	 * @return the files written
	 */
	static List<Path> writeHttp(Path directory, List<HttpResult> results) {
		List<Path> files = new ArrayList<>();
		if (results.isEmpty()) {
			return files;
		}
		files.add(httpChart(directory, "http-requests-ratio", "What a request pays: requests/s",
				"requests/s × the plain endpoint (median of the rounds)", results, (r) -> r.ratio().median()));
		files.add(httpChart(directory, "http-allocation-added", "What a request pays: JVM allocation",
				"KB allocated per request, minus the plain endpoint's", results,
				(r) -> r.allocatedAddedBytes() / 1024));
		return files;
	}

	private static Path httpChart(Path directory, String file, String title, String measure, List<HttpResult> results,
			ToDoubleFunction<HttpResult> value) {
		CategoryChart chart = chart(title, measure);
		// every server gets every endpoint's category; one it does not serve has no bar
		List<String> endpoints = results.stream()
			.map(HttpResult::endpoint)
			.distinct()
			.sorted()
			.map(HttpEndpoint::description)
			.toList();
		Map<HttpServerKind, Map<String, Double>> byServer = new TreeMap<>();
		results.forEach((r) -> byServer.computeIfAbsent(r.server(), (s) -> new TreeMap<>())
			.put(r.endpoint().description(), value.applyAsDouble(r)));
		byServer.forEach((server, values) -> chart.addSeries(server.description(), endpoints,
				endpoints.stream().map((endpoint) -> values.getOrDefault(endpoint, 0.0)).toList()));
		return save(chart, directory, file);
	}

	private static CategoryChart chart(String title, String measure) {
		CategoryChart chart = new CategoryChartBuilder().width(900)
			.height(760)
			.title(title)
			.yAxisTitle(measure)
			.build();
		chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
		// upright labels stay centred on their bars
		chart.getStyler().setXAxisLabelRotation(90);
		chart.getStyler().setYAxisDecimalPattern("#,###.##");
		chart.getStyler().setChartBackgroundColor(Color.WHITE);
		return chart;
	}

	private static Path save(CategoryChart chart, Path directory, String file) {
		try {
			Files.createDirectories(directory);
			Path path = directory.resolve(file + ".png");
			BitmapEncoder.saveBitmap(chart, path.toString(), BitmapFormat.PNG);
			return path;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * What a suite's chart shows.
	 *
	 * @param file the file's name, without its extension
	 * @param measure the measure's axis title
	 * @param value reads the measure from a result
	 */
	record Curve(String file, String measure, ToDoubleFunction<Result> value) {
	}

}
