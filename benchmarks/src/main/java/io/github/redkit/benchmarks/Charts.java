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
		CategoryChart chart = new CategoryChartBuilder().width(900)
			.height(760)
			.title(results.get(0).capability())
			.yAxisTitle(curve.measure())
			.build();
		chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
		// upright labels stay centred on their bars
		chart.getStyler().setXAxisLabelRotation(90);
		chart.getStyler().setYAxisDecimalPattern("#,###.#");
		chart.getStyler().setChartBackgroundColor(Color.WHITE);
		Map<Integer, List<Result>> byThreads = new TreeMap<>();
		results.forEach((result) -> byThreads.computeIfAbsent(result.threads(), (t) -> new ArrayList<>()).add(result));
		byThreads.forEach((threads, measured) -> chart.addSeries(threads + " threads",
				measured.stream().map(Result::contender).toList(),
				measured.stream().map((result) -> curve.value().applyAsDouble(result)).toList()));
		try {
			Files.createDirectories(directory);
			Path file = directory.resolve(curve.file() + ".png");
			BitmapEncoder.saveBitmap(chart, file.toString(), BitmapFormat.PNG);
			return file;
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
