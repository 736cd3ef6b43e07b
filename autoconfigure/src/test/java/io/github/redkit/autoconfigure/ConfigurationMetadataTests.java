package io.github.redkit.autoconfigure;

import java.beans.PropertyDescriptor;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.BeanUtils;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.context.annotation.ClassPathScanningCandidateComponentProvider;
import org.springframework.core.io.ClassPathResource;
import org.springframework.core.type.filter.AnnotationTypeFilter;
import org.springframework.util.ClassUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every property a Redkit properties class binds is in the generated configuration
 * metadata with a description, so that IDEs complete and explain it. The properties are
 * found by walking the classes themselves, not by reading the metadata.
 */
class ConfigurationMetadataTests {

	@Test
	void everyBoundPropertyIsDescribedInTheMetadata() throws Exception {
		Map<String, String> described = describedProperties();
		List<String> bound = new ArrayList<>();
		for (Class<?> type : propertiesClasses()) {
			String prefix = type.getAnnotation(ConfigurationProperties.class).value();
			collect(prefix, type, bound);
		}
		assertThat(bound).as("properties found").hasSizeGreaterThan(40);
		List<String> missing = bound.stream().filter((name) -> !described.containsKey(name)).toList();
		List<String> undescribed = bound.stream()
			.filter((name) -> described.containsKey(name) && described.get(name).isBlank())
			.toList();
		assertThat(missing).as("bound properties missing from the metadata").isEmpty();
		assertThat(undescribed).as("properties without a description").isEmpty();
	}

	private static void collect(String prefix, Class<?> type, List<String> names) {
		for (PropertyDescriptor property : BeanUtils.getPropertyDescriptors(type)) {
			if (property.getReadMethod() == null || property.getName().equals("class")) {
				continue;
			}
			String name = prefix + "." + kebab(property.getName());
			Class<?> propertyType = property.getPropertyType();
			if (isNestedGroup(propertyType)) {
				collect(name, propertyType, names);
			}
			else if (property.getWriteMethod() != null || Map.class.isAssignableFrom(propertyType)
					|| Collection.class.isAssignableFrom(propertyType)) {
				names.add(name);
			}
		}
	}

	private static boolean isNestedGroup(Class<?> type) {
		return type.getName().startsWith("io.github.redkit.autoconfigure") && !type.isEnum();
	}

	private static String kebab(String name) {
		return name.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
	}

	private static List<Class<?>> propertiesClasses() throws ClassNotFoundException {
		ClassPathScanningCandidateComponentProvider scanner = new ClassPathScanningCandidateComponentProvider(false);
		scanner.addIncludeFilter(new AnnotationTypeFilter(ConfigurationProperties.class));
		List<Class<?>> classes = new ArrayList<>();
		for (BeanDefinition candidate : scanner.findCandidateComponents("io.github.redkit.autoconfigure")) {
			classes.add(ClassUtils.forName(candidate.getBeanClassName(), null));
		}
		assertThat(classes).as("properties classes").hasSizeGreaterThanOrEqualTo(8);
		return classes;
	}

	private static Map<String, String> describedProperties() throws IOException {
		Map<String, String> described = new HashMap<>();
		try (InputStream metadata = new ClassPathResource("META-INF/spring-configuration-metadata.json")
			.getInputStream()) {
			JsonNode root = JsonMapper.builder().build().readTree(metadata);
			for (JsonNode property : root.get("properties")) {
				JsonNode description = property.get("description");
				described.put(property.get("name").asString(), (description != null) ? description.asString() : "");
			}
		}
		return described;
	}

}
