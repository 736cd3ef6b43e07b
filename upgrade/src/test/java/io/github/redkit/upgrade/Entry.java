package io.github.redkit.upgrade;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import tools.jackson.databind.json.JsonMapper;

/**
 * One line of a history: a call an instance made and what it was answered.
 *
 * @param fields the line's fields
 */
record Entry(Map<String, Object> fields) {

	private static final JsonMapper json = JsonMapper.builder().build();

	@SuppressWarnings("unchecked")
	static List<Entry> read(List<Path> files) throws IOException {
		List<Entry> entries = new ArrayList<>();
		for (Path file : files) {
			for (String line : Files.readAllLines(file)) {
				entries.add(new Entry(json.readValue(line, Map.class)));
			}
		}
		entries.sort(java.util.Comparator.comparingLong(Entry::start));
		return entries;
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
