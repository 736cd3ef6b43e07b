package io.github.redkit.docs;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every Java or YAML block in the README and in {@code docs/} is a copy of a tagged
 * region of code that compiles and runs in a test: the block is preceded by
 * {@code <!-- snippet: path#name -->} (the path from the repository's root) and must
 * equal the lines between {@code tag::name[]} and {@code end::name[]} in that file,
 * leading indentation aside.
 */
class DocsSnippetsTests {

	private static final Pattern MARKER = Pattern.compile("<!-- snippet: (\\S+)#(\\S+) -->");

	private static final Pattern FENCE = Pattern.compile("^\\s*```(\\w*).*$");

	@Test
	void everyJavaAndYamlBlockIsItsTestedSource() {
		List<String> problems = new ArrayList<>();
		for (Path file : DocsFiles.markdown()) {
			List<String> lines = DocsFiles.lines(file);
			String name = DocsFiles.relative(file);
			for (int i = 0; i < lines.size(); i++) {
				Matcher fence = FENCE.matcher(lines.get(i));
				if (!fence.matches()) {
					continue;
				}
				int end = closing(lines, i);
				String language = fence.group(1);
				Matcher marker = (i > 0) ? MARKER.matcher(lines.get(i - 1).trim()) : null;
				if (marker != null && marker.matches()) {
					String where = name + ":" + (i + 1);
					List<String> block = normalized(lines.subList(i + 1, end));
					List<String> region = region(marker.group(1), marker.group(2), where, problems);
					if (region != null && !region.equals(block)) {
						problems
							.add(where + ": differs from " + marker.group(1) + "#" + marker.group(2) + "\n--- docs\n"
									+ String.join("\n", block) + "\n--- source\n" + String.join("\n", region));
					}
				}
				else if (language.equals("java") || language.equals("yaml") || language.equals("yml")) {
					problems.add(name + ":" + (i + 1) + ": a " + language
							+ " block without a <!-- snippet: path#name --> line before it");
				}
				i = end;
			}
		}
		assertThat(problems).as(String.join("\n\n", problems)).isEmpty();
	}

	private static int closing(List<String> lines, int open) {
		String indent = lines.get(open).substring(0, lines.get(open).indexOf('`'));
		for (int j = open + 1; j < lines.size(); j++) {
			if (lines.get(j).trim().equals("```") && lines.get(j).startsWith(indent)) {
				return j;
			}
		}
		throw new IllegalStateException("unclosed block at line " + (open + 1));
	}

	private static List<String> region(String path, String tag, String where, List<String> problems) {
		Path file = DocsFiles.root().resolve(path);
		if (!Files.isRegularFile(file)) {
			problems.add(where + ": no file " + path);
			return null;
		}
		List<String> lines = DocsFiles.lines(file);
		int start = -1;
		for (int i = 0; i < lines.size(); i++) {
			if (lines.get(i).contains("tag::" + tag + "[]")) {
				start = i;
				break;
			}
		}
		if (start < 0) {
			problems.add(where + ": no tag::" + tag + "[] in " + path);
			return null;
		}
		List<String> region = new ArrayList<>();
		for (int i = start + 1; i < lines.size(); i++) {
			if (lines.get(i).contains("end::" + tag + "[]")) {
				return normalized(region);
			}
			if (!lines.get(i).contains("tag::") && !lines.get(i).contains("end::")) {
				region.add(lines.get(i));
			}
		}
		problems.add(where + ": no end::" + tag + "[] in " + path);
		return null;
	}

	/**
	 * The lines with tabs as four spaces, the indentation they share and trailing blanks
	 * removed.
	 */
	static List<String> normalized(List<String> lines) {
		List<String> expanded = new ArrayList<>();
		for (String line : lines) {
			int i = 0;
			StringBuilder indent = new StringBuilder();
			while (i < line.length() && (line.charAt(i) == '\t' || line.charAt(i) == ' ')) {
				indent.append((line.charAt(i) == '\t') ? "    " : " ");
				i++;
			}
			expanded.add((indent + line.substring(i)).stripTrailing());
		}
		int common = expanded.stream()
			.filter((line) -> !line.isEmpty())
			.mapToInt((line) -> line.length() - line.stripLeading().length())
			.min()
			.orElse(0);
		List<String> result = new ArrayList<>();
		for (String line : expanded) {
			result.add(line.isEmpty() ? line : line.substring(common));
		}
		return result;
	}

}
