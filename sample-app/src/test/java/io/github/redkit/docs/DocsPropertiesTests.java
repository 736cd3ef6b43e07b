package io.github.redkit.docs;

import java.io.InputStream;
import java.net.URL;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every property of Redkit's configuration metadata is named, in backticks, on some page
 * of {@code docs/}: the pages' property tables stay complete when a property is added.
 */
class DocsPropertiesTests {

	@Test
	void everyPropertyIsDocumented() throws Exception {
		StringBuilder docs = new StringBuilder();
		for (Path page : DocsFiles.markdown()) {
			DocsFiles.lines(page).forEach((line) -> docs.append(line).append('\n'));
		}
		List<String> properties = new ArrayList<>();
		JsonMapper json = JsonMapper.builder().build();
		for (URL metadata : Collections
			.list(getClass().getClassLoader().getResources("META-INF/spring-configuration-metadata.json"))) {
			try (InputStream in = metadata.openStream()) {
				for (JsonNode property : json.readTree(in).get("properties")) {
					String name = property.get("name").asString();
					if (name.startsWith("redkit.") || name.startsWith("management.endpoint.redkit.")) {
						properties.add(name);
					}
				}
			}
		}
		assertThat(properties).as("Redkit's properties on the class path").isNotEmpty();
		assertThat(properties).allSatisfy((name) -> assertThat(docs).as(name).contains("`" + name + "`"));
	}

}
