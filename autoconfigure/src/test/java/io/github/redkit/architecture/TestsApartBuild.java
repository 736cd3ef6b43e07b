package io.github.redkit.architecture;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import javax.xml.parsers.DocumentBuilderFactory;

import io.github.redkit.testsupport.TestTags;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * How the build runs the test classes apart ({@code autoconfigure/tests-apart}): the
 * patterns of their sources, the JUnit groups of its executions, and the tags of the
 * compiled classes, read from either project.
 */
final class TestsApartBuild {

	// autoconfigure, or its tests-apart: surefire's basedir
	private static final Path BASEDIR = Path.of(System.getProperty("basedir", System.getProperty("user.dir")))
		.toAbsolutePath()
		.normalize();

	/** The autoconfigure folder. */
	static final Path MODULE = BASEDIR.getFileName().toString().equals("tests-apart") ? BASEDIR.getParent() : BASEDIR;

	/** The test sources both projects compile from. */
	static final Path SOURCES = MODULE.resolve("src/test/java");

	private TestsApartBuild() {
	}

	/** The patterns of the classes apart, by property name. */
	static Map<String, String> patterns() {
		Map<String, String> patterns = new LinkedHashMap<>();
		NodeList properties = ((Element) pom("tests-parent/pom.xml").getElementsByTagName("properties").item(0))
			.getChildNodes();
		for (int i = 0; i < properties.getLength(); i++) {
			Node property = properties.item(i);
			if (property instanceof Element && property.getNodeName().startsWith("redkit.tests-apart.")) {
				patterns.put(property.getNodeName(), property.getTextContent().trim());
			}
		}
		return patterns;
	}

	/** Whether a source, relative to {@link #SOURCES}, is compiled apart. */
	static boolean compiledApart(Path source) {
		return patterns().values()
			.stream()
			.map((pattern) -> FileSystems.getDefault().getPathMatcher("glob:" + pattern))
			.anyMatch((PathMatcher matcher) -> matcher.matches(source));
	}

	/** Each surefire execution of tests-apart and the tags its groups select. */
	static Map<String, Set<String>> executionGroups() {
		Map<String, Set<String>> executions = new LinkedHashMap<>();
		NodeList all = pom("tests-apart/pom.xml").getElementsByTagName("execution");
		for (int i = 0; i < all.getLength(); i++) {
			Element execution = (Element) all.item(i);
			NodeList groups = execution.getElementsByTagName("groups");
			if (groups.getLength() > 0) {
				Set<String> tags = new TreeSet<>();
				for (String tag : groups.item(0).getTextContent().split("\\|")) {
					tags.add(tag.trim());
				}
				executions.put(execution.getElementsByTagName("id").item(0).getTextContent().trim(), tags);
			}
		}
		return executions;
	}

	/** The executions of tests-apart that run a compiled class, by its tags. */
	static List<String> executionsRunning(Class<?> testClass, Map<String, Set<String>> executions) {
		Set<String> tags = TestTags.of(testClass);
		return executions.entrySet()
			.stream()
			.filter((execution) -> execution.getValue().stream().anyMatch(tags::contains))
			.map(Map.Entry::getKey)
			.toList();
	}

	/** The test sources, relative to {@link #SOURCES}. */
	static List<Path> sources() {
		try (Stream<Path> files = Files.walk(SOURCES)) {
			return files.filter((file) -> file.toString().endsWith(".java")).sorted().map(SOURCES::relativize).toList();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** The compiled top-level class of a source, on this JVM's class path. */
	static Class<?> compiled(Path source) {
		String name = source.toString().replace(".java", "").replace('/', '.');
		try {
			return Class.forName(name, false, TestsApartBuild.class.getClassLoader());
		}
		catch (ClassNotFoundException ex) {
			throw new IllegalStateException("No compiled class of " + source + " on the class path of " + BASEDIR, ex);
		}
	}

	/** A POM of the autoconfigure folder, by its path there. */
	static Document pom(String path) {
		Path pom = MODULE.resolve(path);
		try {
			return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile());
		}
		catch (Exception ex) {
			throw new IllegalStateException("Cannot read " + pom, ex);
		}
	}

}
