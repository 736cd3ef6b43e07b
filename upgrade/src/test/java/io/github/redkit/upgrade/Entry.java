package io.github.redkit.upgrade;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

import tools.jackson.databind.json.JsonMapper;

/**
 * One line of a history: a call an instance made and what it was answered.
 *
 * @param fields the line's fields
 */
record Entry(Map<String, Object> fields) {

	private static final JsonMapper json = JsonMapper.builder().build();

	static List<Entry> read(List<Path> files) throws IOException {
		List<Entry> entries = new ArrayList<>();
		for (Path file : files) {
			for (String line : Files.readAllLines(file)) {
				entries.add(parse(line));
			}
		}
		entries.sort(Comparator.comparingLong(Entry::start));
		return entries;
	}

	/**
	 * A recorded history: gzipped JSON lines.
	 * @param recording the recording
	 * @return its entries, in the order they began
	 */
	static List<Entry> read(InputStream recording) throws IOException {
		try (BufferedReader reader = new BufferedReader(
				new InputStreamReader(new GZIPInputStream(recording), StandardCharsets.UTF_8))) {
			List<Entry> entries = new ArrayList<>(reader.lines().map(Entry::parse).toList());
			entries.sort(Comparator.comparingLong(Entry::start));
			return entries;
		}
	}

	/**
	 * Writes a history as a recording (what {@link #read(InputStream)} reads).
	 * @param history the history
	 * @param recording where
	 */
	static void write(List<Entry> history, Path recording) throws IOException {
		Files.createDirectories(recording.getParent());
		try (Writer writer = new OutputStreamWriter(new GZIPOutputStream(Files.newOutputStream(recording)),
				StandardCharsets.UTF_8)) {
			for (Entry entry : history) {
				writer.write(json.writeValueAsString(entry.fields()));
				writer.write('\n');
			}
		}
	}

	@SuppressWarnings("unchecked")
	static Entry parse(String line) {
		return new Entry(json.readValue(line, Map.class));
	}

	String text(String name) {
		Object value = this.fields.get(name);
		return (value != null) ? value.toString() : "";
	}

	long number(String name) {
		Object value = this.fields.get(name);
		if (!(value instanceof Number number)) {
			throw new IllegalStateException("no " + name + " in " + this);
		}
		return number.longValue();
	}

	boolean has(String name) {
		return this.fields.containsKey(name);
	}

	String capability() {
		return text("cap");
	}

	String op() {
		return text("op");
	}

	String key() {
		return text("key");
	}

	String region() {
		return text("region");
	}

	String version() {
		return text("version");
	}

	long start() {
		return number("start");
	}

	long end() {
		return number("end");
	}

	String outcome() {
		return text("outcome");
	}

	boolean ok() {
		return outcome().equals("ok");
	}

	boolean is(String capability, String op) {
		return capability().equals(capability) && op().equals(op);
	}

	@Override
	public String toString() {
		return this.fields.toString();
	}

}
