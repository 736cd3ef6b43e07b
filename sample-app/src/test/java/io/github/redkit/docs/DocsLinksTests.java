package io.github.redkit.docs;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every relative link of the README and of {@code docs/} leads somewhere: the file
 * exists, and a {@code #fragment} is the GitHub anchor of one of that file's headings.
 */
class DocsLinksTests {

	private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");

	private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*?)\\s*#*$");

	@Test
	void everyRelativeLinkAndAnchorResolves() {
		List<String> problems = new ArrayList<>();
		for (Path file : DocsFiles.markdown()) {
			List<String> lines = DocsFiles.lines(file);
			boolean inBlock = false;
			for (int i = 0; i < lines.size(); i++) {
				String line = lines.get(i);
				if (line.trim().startsWith("```")) {
					inBlock = !inBlock;
					continue;
				}
				if (inBlock) {
					continue;
				}
				Matcher link = LINK.matcher(line.replaceAll("`[^`]*`", "``"));
				while (link.find()) {
					String problem = check(file, link.group(1));
					if (problem != null) {
						problems.add(DocsFiles.relative(file) + ":" + (i + 1) + ": " + link.group(1) + ": " + problem);
					}
				}
			}
		}
		assertThat(problems).as(String.join("\n", problems)).isEmpty();
	}

	@Test
	void anchorsAreGitHubs() {
		assertThat(anchors(List.of("## Idempotent steps and budgets", "### `@IdempotentStep`", "## Metrics",
				"### Metrics", "## Redis memory per identifier (2026-11-23)", "## The `redkit` endpoint")))
			.containsExactlyInAnyOrder("idempotent-steps-and-budgets", "idempotentstep", "metrics", "metrics-1",
					"redis-memory-per-identifier-2026-11-23", "the-redkit-endpoint");
	}

	private static String check(Path file, String target) {
		if (target.matches("^[a-z][a-z0-9+.-]*:.*")) {
			return null; // https:, mailto: ...
		}
		int hash = target.indexOf('#');
		String path = (hash < 0) ? target : target.substring(0, hash);
		Path linked = path.isEmpty() ? file : file.getParent().resolve(path).normalize();
		if (!Files.exists(linked)) {
			return "no such file";
		}
		if (hash < 0) {
			return null;
		}
		if (!linked.toString().endsWith(".md")) {
			return "an anchor into a file that is not Markdown";
		}
		String anchor = target.substring(hash + 1);
		return anchors(DocsFiles.lines(linked)).contains(anchor) ? null : "no heading with that anchor";
	}

	static Set<String> anchors(List<String> lines) {
		Set<String> anchors = new HashSet<>();
		Map<String, Integer> seen = new HashMap<>();
		boolean inBlock = false;
		for (String line : lines) {
			if (line.trim().startsWith("```")) {
				inBlock = !inBlock;
				continue;
			}
			Matcher heading = HEADING.matcher(line);
			if (inBlock || !heading.matches()) {
				continue;
			}
			String slug = slug(heading.group(1));
			int count = seen.merge(slug, 1, Integer::sum);
			anchors.add((count == 1) ? slug : slug + "-" + (count - 1));
		}
		return anchors;
	}

	/**
	 * GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens.
	 */
	static String slug(String heading) {
		String text = heading.replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1").toLowerCase(Locale.ROOT);
		StringBuilder slug = new StringBuilder();
		text.codePoints().forEach((c) -> {
			if (Character.isLetterOrDigit(c) || c == '-' || c == '_') {
				slug.appendCodePoint(c);
			}
			else if (c == ' ') {
				slug.append('-');
			}
		});
		return slug.toString();
	}

}
