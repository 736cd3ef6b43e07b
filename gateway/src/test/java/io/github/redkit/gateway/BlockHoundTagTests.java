package io.github.redkit.gateway;

import java.util.Map;
import java.util.Set;

import com.tngtech.archunit.core.domain.JavaClasses;
import io.github.redkit.testsupport.HandStartedServers;
import io.github.redkit.testsupport.NonBlockingThreads;
import io.github.redkit.testsupport.TestTags;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The tests that install BlockHound ({@link NonBlockingThreads#watch()}) need a JVM given
 * its flag: this module's {@code reactive} execution, which runs the classes tagged
 * {@code blockhound} and only those (the default execution runs the others). An untagged
 * one would skip itself in the default execution and run nowhere.
 */
class BlockHoundTagTests {

	@Test
	void everyTestThatInstallsBlockHoundIsTaggedForTheReactiveExecution() {
		JavaClasses classes = HandStartedServers.testClassesOfThisModule();
		Map<String, Set<String>> watchers = TestTags.ofBlockHoundWatchers(classes);
		assertThat(watchers).as("the gateway's tests that install BlockHound").isNotEmpty();
		assertThat(watchers).as("their tags: each needs blockhound, the reactive execution's group")
			.allSatisfy((name, tags) -> assertThat(tags).as(name).contains("blockhound"));
	}

}
