package io.github.redkit.test.boot;

import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.TestContextAnnotationUtils;

/**
 * Points the application context of a {@link RedkitTest @RedkitTest} class at the test
 * Redis; registered in {@code META-INF/spring.factories}, as Spring Boot's test slices
 * register theirs.
 */
class RedkitTestContextCustomizerFactory implements ContextCustomizerFactory {

	@Override
	public @Nullable ContextCustomizer createContextCustomizer(Class<?> testClass,
			List<ContextConfigurationAttributes> configAttributes) {
		RedkitTest annotation = TestContextAnnotationUtils.findMergedAnnotation(testClass, RedkitTest.class);
		return (annotation != null) ? new RedkitTestContextCustomizer(annotation.cluster()) : null;
	}

}
