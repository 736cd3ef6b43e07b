package io.github.redkit.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The Markdown files the docs checks read: the README, the changelog and every page under
 * {@code docs/}, its folders included ({@code docs/migrating/}).
 */
final class DocsFiles {

	private DocsFiles() {
	}

	static Path root() {
		Path dir = Path.of("").toAbsolutePath();
		while (dir != null) {
			if (Files.isRegularFile(dir.resolve("README.md")) && Files.isDirectory(dir.resolve("docs"))) {
				return dir;
			}
			dir = dir.getParent();
		}
		throw new IllegalStateException("no README.md with a docs directory above " + Path.of("").toAbsolutePath());
	}

	static List<Path> markdown() {
		Path root = root();
		List<Path> files = new ArrayList<>();
		files.add(root.resolve("README.md"));
		files.add(root.resolve("CHANGELOG.md"));
		try (Stream<Path> pages = Files.walk(root.resolve("docs"))) {
			pages.filter((path) -> path.toString().endsWith(".md")).sorted().forEach(files::add);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return files;
	}

	static List<String> lines(Path file) {
		try {
			return Files.readAllLines(file);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	static String relative(Path file) {
		return root().relativize(file).toString();
	}

}
