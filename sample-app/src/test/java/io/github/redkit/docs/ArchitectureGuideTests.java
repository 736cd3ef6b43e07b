package io.github.redkit.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The package table of {@code docs/architecture.md} names every package of the
 * {@code redkit-spring-boot} jar: literally ({@code io.github.redkit.region}, or
 * {@code region.internal} in the row of its root), or through a row written for every
 * capability ({@code io.github.redkit.<capability>.web}) when the package's capability is
 * one of those the capability row lists; and every class it names with its package is in
 * that package.
 */
class ArchitectureGuideTests {

	private static final String ROOT = "io.github.redkit.";

	private static final String CAPABILITY = "<capability>";

	private static final Pattern CODE = Pattern.compile("`([^`]+)`");

	// `core.internal.LeaseRenewer`, `lock/internal/LockAdvisor`,
	// `ratelimit.RateLimitDecider.decide`
	private static final Pattern QUALIFIED = Pattern.compile("((?:[a-z]+[./])+[A-Z][A-Za-z0-9]*)(?:\\.[A-Za-z]+)*");

	@Test
	void thePackageTableNamesEveryPackageOfTheJar() {
		List<String> table = packageTable();
		Set<String> named = new LinkedHashSet<>();
		Set<String> templates = new LinkedHashSet<>();
		Set<String> capabilities = new LinkedHashSet<>();
		for (String row : table) {
			for (String code : codes(row)) {
				if (code.startsWith(ROOT)) {
					(code.contains(CAPABILITY) ? templates : named).add(code);
				}
			}
		}
		for (String row : table) {
			List<String> codes = codes(row);
			if (!codes.isEmpty() && codes.get(0).equals(ROOT + CAPABILITY)) {
				codes.stream().skip(1).filter((code) -> code.matches("[a-z]+")).forEach(capabilities::add);
			}
			// a root's row names its sub-packages relative to it: `region.internal`
			codes.stream()
				.filter((code) -> code.matches("[a-z]+(\\.[a-z]+)+"))
				.filter((code) -> named.contains(ROOT + code.substring(0, code.indexOf('.'))))
				.forEach((code) -> named.add(ROOT + code));
		}
		assertThat(capabilities).as("the capabilities the table lists").isNotEmpty();
		Set<String> missing = new TreeSet<>();
		for (String pkg : jarPackages()) {
			boolean listed = named.contains(pkg) || templates.stream()
				.anyMatch((template) -> capabilities.stream()
					.anyMatch((capability) -> template.replace(CAPABILITY, capability).equals(pkg)));
			if (!listed) {
				missing.add(pkg);
			}
		}
		assertThat(missing).as("packages docs/architecture.md's table does not name").isEmpty();
	}

	/**
	 * A row of the table is one line, and the package it is written for exists: a row
	 * broken over two lines renders as two, and a package gone from the jar would stay
	 * listed.
	 */
	@Test
	void everyRowOfThePackageTableIsOneLineForAPackageOfTheJar() {
		List<String> lines = DocsFiles.lines(DocsFiles.root().resolve(Path.of("docs", "architecture.md")));
		int start = lines.indexOf("## Packages");
		List<String> section = lines.stream().skip(start + 1).takeWhile((line) -> !line.startsWith("## ")).toList();
		int first = section.indexOf(section.stream().filter((line) -> line.startsWith("| ")).findFirst().orElseThrow());
		List<String> broken = section.stream()
			.skip(first)
			.takeWhile((line) -> !line.isEmpty())
			.filter((line) -> !line.startsWith("|") || !line.endsWith("|"))
			.toList();
		assertThat(broken).as("lines of the package table that are not whole rows").isEmpty();
		Set<String> packages = jarPackages();
		Set<String> gone = new TreeSet<>();
		for (String row : packageTable()) {
			List<String> codes = codes(row);
			if (!codes.isEmpty() && codes.get(0).startsWith(ROOT) && !codes.get(0).contains(CAPABILITY)
					&& !packages.contains(codes.get(0))) {
				gone.add(codes.get(0));
			}
		}
		assertThat(gone).as("packages the table has a row for that the jar does not have").isEmpty();
	}

	@Test
	void everyClassTheGuideNamesWithItsPackageIsThere() {
		Set<String> classes = jarClasses();
		Set<String> missing = new TreeSet<>();
		for (String line : DocsFiles.lines(DocsFiles.root().resolve(Path.of("docs", "architecture.md")))) {
			for (String code : codes(line)) {
				Matcher reference = QUALIFIED.matcher(code);
				// a file name (`widget/WidgetAutoConfiguration.java`) is an example of a
				// file to add
				if (reference.matches() && !code.endsWith(".java")) {
					String name = ROOT + reference.group(1).replace('/', '.');
					if (!classes.contains(name)) {
						missing.add(code);
					}
				}
			}
		}
		assertThat(missing).as("classes docs/architecture.md places in a package they are not in").isEmpty();
	}

	private static List<String> packageTable() {
		List<String> lines = DocsFiles.lines(DocsFiles.root().resolve(Path.of("docs", "architecture.md")));
		int start = lines.indexOf("## Packages");
		assertThat(start).as("the guide's Packages section").isNotNegative();
		return lines.stream()
			.skip(start + 1)
			.takeWhile((line) -> !line.startsWith("## "))
			.filter((line) -> line.startsWith("| "))
			.toList();
	}

	private static List<String> codes(String row) {
		Matcher matcher = CODE.matcher(row);
		return matcher.results().map((result) -> result.group(1)).toList();
	}

	private static Set<String> jarPackages() {
		Set<String> packages = new TreeSet<>();
		jarClasses().stream().map((name) -> name.substring(0, name.lastIndexOf('.'))).forEach(packages::add);
		assertThat(packages).as("the jar's packages").contains(ROOT + "core");
		return packages;
	}

	private static Set<String> jarClasses() {
		Set<String> classes = new TreeSet<>();
		Path jar = Path.of(URI
			.create(RedkitAutoConfiguration.class.getProtectionDomain().getCodeSource().getLocation().toString()));
		try (FileSystem files = (Files.isDirectory(jar)) ? null : FileSystems.newFileSystem(jar)) {
			Path root = (files != null) ? files.getPath("/") : jar;
			try (Stream<Path> entries = Files.walk(root)) {
				entries.map((path) -> root.relativize(path).toString())
					.filter((name) -> name.endsWith(".class"))
					.map((name) -> name.substring(0, name.length() - ".class".length()).replace('/', '.'))
					.map((name) -> (name.indexOf('$') < 0) ? name : name.substring(0, name.indexOf('$')))
					.filter((name) -> name.startsWith(ROOT))
					.forEach(classes::add);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return classes;
	}

}
