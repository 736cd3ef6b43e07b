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

	@Test
	void everyEnumPropertyHasAHintForEachOfItsValues() throws Exception {
		Map<String, List<String>> hinted = hintedValues();
		Map<String, Class<?>> enums = new HashMap<>();
		for (Class<?> type : propertiesClasses()) {
			String prefix = type.getAnnotation(ConfigurationProperties.class).value();
			collectEnums(prefix, type, enums);
		}
		assertThat(enums).as("enum properties found").isNotEmpty();
		enums.forEach((name, type) -> {
			List<String> values = new ArrayList<>();
			for (Object constant : type.getEnumConstants()) {
				values.add(((Enum<?>) constant).name().toLowerCase(Locale.ROOT).replace('_', '-'));
			}
			assertThat(hinted.get(name)).as("value hints of %s", name).containsExactlyInAnyOrderElementsOf(values);
		});
	}

	private static void collectEnums(String prefix, Class<?> type, Map<String, Class<?>> enums) {
		for (PropertyDescriptor property : BeanUtils.getPropertyDescriptors(type)) {
			if (property.getReadMethod() == null || property.getName().equals("class")) {
				continue;
			}
			String name = prefix + "." + kebab(property.getName());
			Class<?> propertyType = property.getPropertyType();
			if (propertyType.isEnum() && property.getWriteMethod() != null) {
				enums.put(name, propertyType);
			}
			else if (isNestedGroup(propertyType)) {
				collectEnums(name, propertyType, enums);
			}
		}
	}

	private static Map<String, List<String>> hintedValues() throws IOException {
		Map<String, List<String>> hinted = new HashMap<>();
		try (InputStream metadata = new ClassPathResource("META-INF/spring-configuration-metadata.json")
			.getInputStream()) {
			JsonNode hints = JsonMapper.builder().build().readTree(metadata).get("hints");
			if (hints != null) {
				for (JsonNode hint : hints) {
					List<String> values = new ArrayList<>();
					for (JsonNode value : hint.get("values")) {
						values.add(value.get("value").asString());
					}
					hinted.put(hint.get("name").asString(), values);
				}
			}
		}
		return hinted;
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
