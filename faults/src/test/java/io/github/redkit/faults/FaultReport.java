package io.github.redkit.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The reliability table: for each capability and fault, the schedules run, operations
 * done, faults injected and violations found, written to {@code target/faults/} after
 * every run.
 */
final class FaultReport {

	private static final Path FILE = Path.of("target", "faults", "reliability.md");

	private static final Map<String, Row> ROWS = new ConcurrentHashMap<>();

	private static final Map<String, String> GUARANTEES = new ConcurrentHashMap<>();

	private FaultReport() {
	}

	static synchronized void add(FaultRun.Result result, String guarantee) {
		GUARANTEES.put(result.capability(), guarantee);
		Map<Fault, Long> injected = new TreeMap<>();
		result.history().faults().forEach((fault) -> injected.merge(fault.event().fault(), 1L, Long::sum));
		int ops = result.history().ops().size();
		if (injected.isEmpty()) {
			row(result.capability(), "none").add(ops, 0, result.failed());
		}
		injected
			.forEach((fault, count) -> row(result.capability(), fault.description()).add(ops, count, result.failed()));
		write();
	}

	private static Row row(String capability, String fault) {
		return ROWS.computeIfAbsent(capability + "|" + fault, (key) -> new Row());
	}

	private static void write() {
		StringBuilder table = new StringBuilder(
				"| capability | fault | schedules | operations | faults injected | violations |\n|---|---|---:|---:|---:|---:|\n");
		new TreeMap<>(ROWS).forEach((key, row) -> {
			String[] parts = key.split("\\|", 2);
			table.append(String.format("| %s | %s | %,d | %,d | %,d | %d |%n", parts[0], parts[1], row.schedules.sum(),
					row.operations.sum(), row.faults.sum(), row.violations.sum()));
		});
		table.append("\n| capability | the guarantee checked |\n|---|---|\n");
		new TreeMap<>(GUARANTEES).forEach((capability,
				guarantee) -> table.append("| ").append(capability).append(" | ").append(guarantee).append(" |\n"));
		try {
			Files.createDirectories(FILE.getParent());
			Files.writeString(FILE, table);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** One cell row's counts. */
	private static final class Row {

		final LongAdder schedules = new LongAdder();

		final LongAdder operations = new LongAdder();

		final LongAdder faults = new LongAdder();

		final LongAdder violations = new LongAdder();

		void add(long ops, long injected, boolean failed) {
			this.schedules.increment();
			this.operations.add(ops);
			this.faults.add(injected);
			if (failed) {
				this.violations.increment();
			}
		}

	}

}
