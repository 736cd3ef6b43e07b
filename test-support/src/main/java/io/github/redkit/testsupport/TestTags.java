package io.github.redkit.testsupport;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import org.junit.jupiter.api.Tag;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * The JUnit tags of compiled test classes, read as JUnit reads them (a {@code @Tag}, a
 * {@code @Tags}, a composed annotation carrying them, inherited, or on an enclosing
 * class), not from the source, where a commented-out {@code @Tag} looks like one.
 */
public final class TestTags {

	private TestTags() {
	}

	/**
	 * The tags of a test class.
	 * @param testClass the class
	 * @return its tags and those of the classes enclosing it
	 */
	public static Set<String> of(Class<?> testClass) {
		Set<String> tags = new TreeSet<>();
		for (Class<?> type = testClass; type != null; type = type.getEnclosingClass()) {
			AnnotationSupport.findRepeatableAnnotations(type, Tag.class).forEach((tag) -> tags.add(tag.value()));
		}
		return tags;
	}

	/**
	 * The classes that install BlockHound ({@link NonBlockingThreads#watch()}), which
	 * skips its class in a JVM not given the flag it needs, with their tags.
	 * @param classes compiled test classes
	 * @return the tags of each class that calls it, by class name
	 */
	public static Map<String, Set<String>> ofBlockHoundWatchers(JavaClasses classes) {
		Map<String, Set<String>> watchers = new TreeMap<>();
		for (JavaClass type : classes) {
			boolean watches = type.getMethodCallsFromSelf()
				.stream()
				.anyMatch((call) -> call.getTargetOwner().isEquivalentTo(NonBlockingThreads.class)
						&& call.getName().equals("watch"));
			if (watches) {
				watchers.put(type.getName(), of(type.reflect()));
			}
		}
		return watchers;
	}

}
