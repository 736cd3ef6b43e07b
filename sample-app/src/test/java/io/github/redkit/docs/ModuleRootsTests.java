package io.github.redkit.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each module of the build has package roots of its own, listed in the module table of
 * {@code docs/architecture.md}: every package its main and test code declares sits at or
 * below one of them, and no root is, contains or lies inside another module's. Two jars
 * that share a package (a split package) or a test library nested in another's root make
 * a class's home ambiguous; this fails naming the file.
 */
class ModuleRootsTests {

	private static final String SECTION = "## Modules";

	private static final Pattern MODULE = Pattern.compile("<module>([^<]+)</module>");

	private static final Pattern PACKAGE = Pattern.compile("^package\\s+([\\w.]+)\\s*;", Pattern.MULTILINE);

	private static final Pattern CODE = Pattern.compile("`([^`]+)`");

	@Test
	void everyModuleKeepsToItsOwnRoots() {
		Path root = DocsFiles.root();
		Map<String, List<String>> roots = rootsTable(root);
		List<String> modules = modules(root);
		assertThat(roots.keySet()).as("modules of docs/architecture.md's module table")
			.containsExactlyInAnyOrderElementsOf(modules);
		List<String> problems = new ArrayList<>();
		roots.forEach((module, own) -> roots.forEach((other, theirs) -> {
			if (module.compareTo(other) < 0) {
				for (String mine : own) {
					for (String their : theirs) {
						if (within(mine, their) || within(their, mine)) {
							problems.add("root " + mine + " of " + module + " overlaps root " + their + " of " + other);
						}
					}
				}
			}
		}));
		Map<String, Set<String>> modulesOfPackage = new TreeMap<>();
		for (String module : modules) {
			Set<String> used = new TreeSet<>();
			for (Path file : javaFiles(root.resolve(module))) {
				String pkg = packageOf(file);
				used.add(pkg);
				modulesOfPackage.computeIfAbsent(pkg, (key) -> new TreeSet<>()).add(module);
				if (roots.get(module).stream().noneMatch((own) -> within(pkg, own))) {
					problems.add(root.relativize(file) + " declares " + pkg + ", outside " + module + "'s roots "
							+ roots.get(module) + owner(pkg, roots));
				}
			}
			roots.get(module)
				.stream()
				.filter((own) -> used.stream().noneMatch((pkg) -> within(pkg, own)))
				.forEach((own) -> problems.add("root " + own + " of " + module + " holds no package"));
		}
		modulesOfPackage.forEach((pkg, owners) -> {
			if (owners.size() > 1) {
				problems.add("package " + pkg + " is declared in several modules " + owners);
			}
		});
		assertThat(problems).as("package roots against docs/architecture.md's module table").isEmpty();
	}

	/**
	 * Whether the package is the root or one of its sub-packages (by segments:
	 * {@code io.github.redkit.testsupport} is not in {@code io.github.redkit.test}).
	 */
	private static boolean within(String pkg, String root) {
		return pkg.equals(root) || pkg.startsWith(root + ".");
	}

	private static String owner(String pkg, Map<String, List<String>> roots) {
		return roots.entrySet()
			.stream()
			.filter((entry) -> entry.getValue().stream().anyMatch((root) -> within(pkg, root)))
			.map((entry) -> ", inside a root of " + entry.getKey())
			.findFirst()
			.orElse("");
	}

	private static List<String> modules(Path root) {
		String pom = read(root.resolve("pom.xml"));
		List<String> entries = MODULE.matcher(pom).results().map((result) -> result.group(1).trim()).toList();
		// one module of the table: autoconfigure/library builds the sources of
		// autoconfigure, whose own POM runs their tests
		List<String> modules = entries.stream()
			.filter((entry) -> entries.stream().noneMatch((other) -> entry.startsWith(other + "/")))
			.toList();
		assertThat(modules).as("the root pom's modules").contains("autoconfigure", "sample-app");
		return modules;
	}

	/**
	 * The rows of the guide's module table:
	 * {@code | `module` | `artifact` | `root`, ... |
	 * what |}; a module without Java code has no root.
	 */
	private static Map<String, List<String>> rootsTable(Path root) {
		List<String> lines = DocsFiles.lines(root.resolve(Path.of("docs", "architecture.md")));
		int start = lines.indexOf(SECTION);
		assertThat(start).as("the guide's " + SECTION + " section").isNotNegative();
		Map<String, List<String>> roots = new LinkedHashMap<>();
		lines.stream()
			.skip(start + 1)
			.takeWhile((line) -> !line.startsWith("## "))
			.filter((line) -> line.startsWith("| `"))
			.forEach((line) -> {
				String[] cells = line.split("\\|");
				assertThat(cells).as(line).hasSizeGreaterThan(4);
				roots.put(codes(cells[1]).get(0), codes(cells[3]));
			});
		return roots;
	}

	private static List<String> codes(String cell) {
		Matcher matcher = CODE.matcher(cell);
		return matcher.results().map((result) -> result.group(1)).toList();
	}

	private static List<Path> javaFiles(Path module) {
		Path src = module.resolve("src");
		if (!Files.isDirectory(src)) {
			return List.of();
		}
		try (Stream<Path> files = Files.walk(src)) {
			return files.filter((file) -> file.toString().endsWith(".java"))
				.filter((file) -> src.relativize(file).getNameCount() > 2
						&& src.relativize(file).getName(1).toString().equals("java"))
				.sorted()
				.toList();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static String packageOf(Path file) {
		Matcher matcher = PACKAGE.matcher(read(file));
		assertThat(matcher.find()).as("a package declaration in " + file).isTrue();
		return matcher.group(1);
	}

	private static String read(Path file) {
		try {
			return Files.readString(file);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
