package io.github.redkit.docs;

import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code redkit-bom} manages every artifact the build publishes (each module that does
 * not skip {@code deploy}), at the build's version, and manages nothing else; the
 * published jars carry the licence and the notice.
 */
class BomTests {

	@Test
	void theBomManagesEveryPublishedArtifactAtTheBuildsVersion() throws Exception {
		Path root = DocsFiles.root();
		Document parent = read(root.resolve("pom.xml"));
		List<String> published = new ArrayList<>();
		for (String module : children(parent.getDocumentElement(), "modules", "module")) {
			Document pom = read(root.resolve(module).resolve("pom.xml"));
			boolean skipsDeploy = Files.readString(root.resolve(module).resolve("pom.xml")).contains("deploy.skip");
			String packaging = text(pom.getDocumentElement(), "packaging");
			if (!skipsDeploy && !module.equals("bom") && !"pom".equals(packaging)) {
				published.add(text(pom.getDocumentElement(), "artifactId"));
			}
		}
		Document bom = read(root.resolve("bom/pom.xml"));
		Map<String, String> managed = new TreeMap<>();
		NodeList dependencies = bom.getElementsByTagName("dependency");
		for (int i = 0; i < dependencies.getLength(); i++) {
			Element dependency = (Element) dependencies.item(i);
			assertThat(text(dependency, "groupId")).isEqualTo("io.github.redkit");
			managed.put(text(dependency, "artifactId"), text(dependency, "version"));
		}
		assertThat(published).as("published modules").hasSize(8);
		assertThat(managed.keySet()).containsExactlyInAnyOrderElementsOf(published);
		assertThat(managed.values()).containsOnly("${project.version}");
		assertThat(text(bom.getDocumentElement(), "version")).as("the BOM's version is the build's")
			.isEqualTo(text(parent.getDocumentElement(), "version"));
	}

	@Test
	void everyRedkitJarOnTheClassPathCarriesTheLicenceAndTheNotice() throws Exception {
		// the sample depends on four published modules: redkit-spring-boot, its starter,
		// redkit-spring-boot-test
		// and redkit-test-support; the others are built by the same parent configuration
		ClassLoader loader = getClass().getClassLoader();
		List<URL> notices = new ArrayList<>();
		for (URL notice : Collections.list(loader.getResources("META-INF/NOTICE"))) {
			if (read(notice).startsWith("Redkit\n")) {
				notices.add(notice);
			}
		}
		assertThat(notices).as("Redkit's META-INF/NOTICE on the class path").hasSizeGreaterThanOrEqualTo(4);
		for (URL notice : notices) {
			URL licence = new URL(notice.toString().replace("META-INF/NOTICE", "META-INF/LICENSE"));
			assertThat(read(licence)).as(licence.toString()).contains("Apache License").contains("Version 2.0");
		}
	}

	private static String read(URL url) throws Exception {
		try (InputStream in = url.openStream()) {
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
	}

	private static Document read(Path pom) throws Exception {
		return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile());
	}

	private static List<String> children(Element element, String container, String child) {
		List<String> values = new ArrayList<>();
		for (Node node = element.getFirstChild(); node != null; node = node.getNextSibling()) {
			if (node instanceof Element list && list.getTagName().equals(container)) {
				NodeList items = list.getElementsByTagName(child);
				for (int i = 0; i < items.getLength(); i++) {
					values.add(items.item(i).getTextContent().trim());
				}
			}
		}
		return values;
	}

	private static String text(Element element, String child) {
		for (Node node = element.getFirstChild(); node != null; node = node.getNextSibling()) {
			if (node instanceof Element found && found.getTagName().equals(child)) {
				return found.getTextContent().trim();
			}
		}
		return "";
	}

}
