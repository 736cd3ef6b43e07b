package io.github.redkit.upgrade;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * An instance's history while it is written: each poll reads only what was appended since
 * the last one (the test polls every few milliseconds, and a history grows to megabytes).
 */
final class HistoryFile {

	private final Path path;

	private long offset;

	private long lines;

	HistoryFile(Path path) {
		this.path = path;
	}

	Path path() {
		return this.path;
	}

	/**
	 * Reads what was appended.
	 * @return the complete lines appended since the last poll
	 */
	List<String> poll() throws IOException {
		List<String> complete = new ArrayList<>();
		if (!Files.exists(this.path)) {
			return complete;
		}
		try (RandomAccessFile file = new RandomAccessFile(this.path.toFile(), "r")) {
			long length = file.length();
			if (length <= this.offset) {
				return complete;
			}
			byte[] appended = new byte[(int) (length - this.offset)];
			file.seek(this.offset);
			file.readFully(appended);
			// lines are flushed whole, but a read may still end inside one: up to the
			// last line's end only
			int end = appended.length - 1;
			while (end >= 0 && appended[end] != '\n') {
				end--;
			}
			if (end < 0) {
				return complete;
			}
			this.offset += end + 1;
			complete.addAll(new String(appended, 0, end, StandardCharsets.UTF_8).lines().toList());
		}
		this.lines += complete.size();
		return complete;
	}

	/**
	 * How many complete lines were read so far.
	 */
	long lines() {
		return this.lines;
	}

}
