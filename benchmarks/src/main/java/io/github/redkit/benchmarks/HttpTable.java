package io.github.redkit.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * A Markdown table of the HTTP benchmark's rows, as {@code docs/benchmarks.md} keeps
 * them: the server and the endpoint, then a right-aligned column per value, where the
 * plain endpoint (the reference) shows {@code –} for a difference to itself.
 *
 * @param <R> the rows
 */
final class HttpTable<R extends HttpTable.Row> {

	private final List<String> headers = new ArrayList<>(List.of("server", "endpoint"));

	private final List<Function<R, String>> cells = new ArrayList<>(
			List.of((row) -> row.server().description(), (row) -> row.endpoint().description()));

	/**
	 * Adds a column.
	 * @param header its header
	 * @param cell what a row shows in it
	 * @return this table
	 */
	HttpTable<R> column(String header, Function<R, String> cell) {
		this.headers.add(header);
		this.cells.add(cell);
		return this;
	}

	/**
	 * Adds a column of a difference to the plain endpoint, {@code –} on its own row.
	 * @param header its header
	 * @param cell what a measured row shows in it
	 * @return this table
	 */
	HttpTable<R> added(String header, Function<R, String> cell) {
		return column(header, (row) -> row.endpoint() == HttpEndpoint.PLAIN ? "–" : cell.apply(row));
	}

	String markdown(List<R> rows) {
		StringBuilder table = new StringBuilder();
		line(table, this.headers);
		List<String> alignments = new ArrayList<>(List.of("---", "---"));
		this.headers.stream().skip(2).forEach((header) -> alignments.add("---:"));
		table.append('|').append(String.join("|", alignments)).append("|\n");
		for (R row : rows) {
			line(table, this.cells.stream().map((cell) -> cell.apply(row)).toList());
		}
		return table.toString();
	}

	private static void line(StringBuilder table, List<String> cells) {
		table.append("| ").append(String.join(" | ", cells)).append(" |\n");
	}

	static String format(String format, Object... values) {
		return String.format(Locale.ROOT, format, values);
	}

	/**
	 * A value over rounds or slices as {@code median (min–max)}.
	 * @param format the format of each of the three numbers
	 * @param spread the value
	 * @param unit what each number is divided by (1000 for milliseconds from
	 * microseconds)
	 * @return the cell
	 */
	static String spread(String format, HttpResult.Spread spread, double unit) {
		return format(format + " (" + format + "–" + format + ")", spread.median() / unit, spread.min() / unit,
				spread.max() / unit);
	}

	/** A row of the HTTP benchmark: an endpoint on a server. */
	interface Row {

		HttpServerKind server();

		HttpEndpoint endpoint();

	}

}
