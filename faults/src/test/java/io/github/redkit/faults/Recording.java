package io.github.redkit.faults;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

import io.github.redkit.concurrency.ConcurrencyPermit;
import io.github.redkit.faults.IdempotentStepScenario.Claimed;
import io.github.redkit.lock.LockHandle;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * A run's history and the checker's other inputs ({@link Scenario#evidence()}) on file,
 * one JSON object a line, gzipped ({@code zcat} reads it), so that a checker can judge a
 * run recorded once (a broken build's, say) without starting servers and instances again.
 * Values the checker does not read as objects are kept as their text.
 */
final class Recording {

	/** Where the recordings live on the test class path. */
	static final String RESOURCES = "recorded/";

	/** A directory to record live runs in ({@code -Dfaults.record=...}), if any. */
	static final String RECORD_PROPERTY = "faults.record";

	/**
	 * Recordings are gzipped JSON lines: a broken rate limiter's 3 s make a megabyte of
	 * text.
	 */
	private static final String SUFFIX = ".jsonl.gz";

	private static final String SET = "set";

	private static final JsonMapper JSON = JsonMapper.builder()
		.enable(DeserializationFeature.USE_LONG_FOR_INTS)
		.disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
		.build();

	private Recording() {
	}

	/**
	 * Runs a scenario live and records the run under a name when {@code faults.record}
	 * names a directory: how a recording is made (or made again when a scenario or its
	 * checker changes what it records).
	 * @param name the recording's name
	 * @param scenarios makes the scenario
	 * @param schedule the schedule
	 * @return the run
	 */
	static FaultRun.Result run(String name, Supplier<? extends Scenario> scenarios, Schedule schedule) {
		FaultRun.Result result = FaultRun.run(scenarios, schedule);
		String directory = System.getProperty(RECORD_PROPERTY, "");
		if (!directory.isBlank()) {
			Path file = Path.of(directory).resolve(name + SUFFIX);
			write(file, result.scenario(), result);
			// a recording that leaves out something the checker reads would judge
			// otherwise
			List<String> again = judge(file.toString(), read(file), scenarios.get());
			if (again.size() != result.violations().size()) {
				throw new IllegalStateException("The recording " + file + " finds " + again.size()
						+ " violations where the live run found " + result.violations().size());
			}
		}
		return result;
	}

	static void write(Path file, Scenario scenario, FaultRun.Result result) {
		List<String> lines = new ArrayList<>();
		ObjectNode header = JSON.createObjectNode();
		header.put("capability", result.capability());
		header.put("schedule", result.schedule().toString());
		header.put("violations", result.violations().size());
		Object evidence = scenario.evidence();
		if (evidence != null) {
			header.put("evidenceType", evidence.getClass().getName());
			header.set("evidence", JSON.valueToTree(evidence));
		}
		lines.add(JSON.writeValueAsString(header));
		for (FaultRecord fault : result.history().faults()) {
			ObjectNode line = JSON.createObjectNode();
			line.set("fault", JSON.valueToTree(new FaultRecord(fault.event(), fault.started(), fault.healed())));
			typed(line, fault.held());
			lines.add(JSON.writeValueAsString(line));
		}
		for (Op op : result.history().ops()) {
			ObjectNode line = JSON.createObjectNode();
			line.set("op", JSON.valueToTree(new Op(op.process(), op.action(), op.key(), op.amount(), op.invoked(),
					op.completed(), op.outcome(), null)));
			typed(line, op.value());
			lines.add(JSON.writeValueAsString(line));
		}
		try {
			Files.createDirectories(file.toAbsolutePath().getParent());
			try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(file))) {
				out.write(String.join("\n", lines).concat("\n").getBytes(StandardCharsets.UTF_8));
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Judges a recorded run with a scenario's checker.
	 * @param name the recording's name under {@code recorded/}
	 * @param scenario a fresh scenario, which gets the recorded evidence
	 * @return the violations the checker finds
	 */
	static List<String> judge(String name, Scenario scenario) {
		String resource = RESOURCES + name + SUFFIX;
		try (InputStream in = Recording.class.getClassLoader().getResourceAsStream(resource)) {
			if (in == null) {
				throw new IllegalArgumentException("No recording " + resource + " (record one: docs/testing.md)");
			}
			return judge(resource, lines(in), scenario);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static List<String> judge(String where, List<String> lines, Scenario scenario) {
		History history = new History();
		JsonNode header = JSON.readTree(lines.get(0));
		if (header.has("evidence")) {
			scenario.restore(JSON.treeToValue(header.get("evidence"), type(header.get("evidenceType").asString())));
		}
		for (String text : lines.subList(1, lines.size())) {
			JsonNode line = JSON.readTree(text);
			if (line.has("fault")) {
				FaultRecord fault = JSON.treeToValue(line.get("fault"), FaultRecord.class);
				history.fault(new FaultRecord(fault.event(), fault.started(), fault.healed(), value(line)));
			}
			else {
				Op op = JSON.treeToValue(line.get("op"), Op.class);
				history.add(new Op(op.process(), op.action(), op.key(), op.amount(), op.invoked(), op.completed(),
						op.outcome(), value(line)));
			}
		}
		if (history.ops().isEmpty()) {
			throw new IllegalStateException("The recording " + where + " holds no operation");
		}
		return scenario.check(history);
	}

	private static List<String> read(Path file) {
		try (InputStream in = Files.newInputStream(file)) {
			return lines(in);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static List<String> lines(InputStream in) throws IOException {
		try (InputStream unzipped = new GZIPInputStream(in)) {
			return new String(unzipped.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
		}
	}

	private static void typed(ObjectNode line, @Nullable Object value) {
		Object recordable = recordable(value);
		if (recordable != null) {
			// a set (what Redis held before a restart) by its elements
			line.put("type", (recordable instanceof Set<?>) ? SET : recordable.getClass().getName());
			line.set("value", JSON.valueToTree(recordable));
		}
	}

	private static @Nullable Object value(JsonNode line) {
		if (!line.has("type")) {
			return null;
		}
		String type = line.get("type").asString();
		if (type.equals(SET)) {
			return Set.copyOf(JSON.treeToValue(line.get("value"), List.class));
		}
		return JSON.treeToValue(line.get("value"), type(type));
	}

	/**
	 * What a checker reads of a value: a live handle by its fencing token, a visit by
	 * what it saw, a step's claim without the library's object; values the checkers only
	 * print, by their text.
	 */
	private static @Nullable Object recordable(@Nullable Object value) {
		if (value instanceof Optional<?> optional) {
			return recordable(optional.orElse(null));
		}
		if (value instanceof LockHandle handle) {
			return handle.fencingToken();
		}
		if (value instanceof Visits.Visit visit) {
			return visit.stay();
		}
		if (value instanceof ConcurrencyPermit) {
			// a broken build's permit is a record too, of a library type
			return value.toString();
		}
		if (value instanceof Claimed claimed) {
			return new Claimed(claimed.token(), claimed.outcome(), claimed.stored(), null);
		}
		if (value == null || value instanceof Record || value instanceof Number || value instanceof Boolean
				|| value instanceof String || value instanceof Set<?>) {
			return value;
		}
		return value.toString();
	}

	private static Class<?> type(String name) {
		// only the harness's own records and plain values, never a type a file names
		if (!name.startsWith("io.github.redkit.") && !name.startsWith("java.lang.")) {
			throw new IllegalArgumentException("A recording names a type outside the harness: " + name);
		}
		try {
			return Class.forName(name, false, Recording.class.getClassLoader());
		}
		catch (ClassNotFoundException ex) {
			throw new IllegalArgumentException("A recording names an unknown type: " + name, ex);
		}
	}

}
