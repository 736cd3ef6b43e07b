package io.github.redkit.upgrade;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;

import org.jspecify.annotations.Nullable;

/**
 * What one instance asked and was answered, one JSON object a line, each stamped with the
 * instance, its version and region, and when the call began and ended (microseconds on
 * the machine's clock, which every instance of the test shares).
 */
public final class HistoryLog implements AutoCloseable {

	private final BufferedWriter writer;

	private final Map<String, Object> stamp;

	HistoryLog(Path file, String instance, String version, String region) {
		try {
			this.writer = Files.newBufferedWriter(file, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
					StandardOpenOption.APPEND);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		this.stamp = Map.of("instance", instance, "version", version, "region", region);
	}

	static long micros() {
		Instant now = Instant.now();
		return now.getEpochSecond() * 1_000_000 + now.getNano() / 1000;
	}

	static long micros(Instant instant) {
		return instant.getEpochSecond() * 1_000_000 + instant.getNano() / 1000;
	}

	/**
	 * Runs a call and writes it: the fields {@code answer} returns from its result, or
	 * {@code outcome=error} with the exception (no fault is injected: any error is a
	 * broken promise).
	 * @param <T> the result type
	 * @param capability what is driven
	 * @param op the operation
	 * @param key the key or name
	 * @param call the call
	 * @param answer the fields to write from the result (at least {@code outcome})
	 * @return the result, or null after an error
	 */
	<T> @Nullable T call(String capability, String op, String key, Callable<T> call, Answer<T> answer) {
		long start = micros();
		Map<String, Object> fields = new LinkedHashMap<>();
		T result = null;
		try {
			result = call.call();
			answer.fill(result, fields);
		}
		catch (Exception ex) {
			fields.put("outcome", "error");
			fields.put("error", ex.toString());
		}
		write(capability, op, key, start, micros(), fields);
		return result;
	}

	synchronized void write(String capability, String op, String key, long start, long end,
			Map<String, Object> fields) {
		Map<String, Object> line = new LinkedHashMap<>(this.stamp);
		line.put("cap", capability);
		line.put("op", op);
		line.put("key", key);
		line.put("start", start);
		line.put("end", end);
		line.putAll(fields);
		try {
			this.writer.write(json(line));
			this.writer.newLine();
			// the test reads the file while the instance runs (its ready line first)
			this.writer.flush();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	void event(String name) {
		long now = micros();
		write("instance", name, "", now, now, Map.of("outcome", "ok"));
	}

	private static String json(Map<String, Object> fields) {
		StringBuilder json = new StringBuilder("{");
		fields.forEach((name, value) -> {
			if (json.length() > 1) {
				json.append(',');
			}
			json.append(quoted(name)).append(':');
			json.append((value instanceof Number || value instanceof Boolean) ? value.toString()
					: quoted(String.valueOf(value)));
		});
		return json.append('}').toString();
	}

	private static String quoted(String text) {
		StringBuilder quoted = new StringBuilder("\"");
		for (char c : text.toCharArray()) {
			if (c == '"' || c == '\\') {
				quoted.append('\\').append(c);
			}
			else if (c < 0x20) {
				quoted.append(String.format("\\u%04x", (int) c));
			}
			else {
				quoted.append(c);
			}
		}
		return quoted.append('"').toString();
	}

	@Override
	public synchronized void close() {
		try {
			this.writer.close();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * The fields of an answer.
	 *
	 * @param <T> the result type
	 */
	@FunctionalInterface
	interface Answer<T> {

		void fill(T result, Map<String, Object> fields);

	}

}
