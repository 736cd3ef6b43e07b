package io.github.redkit.architecture;

import com.tngtech.archunit.core.domain.JavaClasses;
import io.github.redkit.testsupport.HandStartedServers;
import io.github.redkit.testsupport.NonBlockingThreads;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The tests that install BlockHound ({@link NonBlockingThreads#watch()}) run where their
 * JVM is set up for it: in this project's JVMs the call skips its class, which then runs
 * nowhere. A class that installs it is compiled and run by
 * {@code autoconfigure/tests-apart} (a {@code Reactive*Tests}, or one listed in
 * {@code autoconfigure/tests-parent/pom.xml}), never here.
 */
class TestsApartTests {

	@Test
	void noTestCompiledHereInstallsBlockHound() {
		JavaClasses classes = HandStartedServers.testClassesOfThisModule();
		assertThat(classes).as("this project's compiled test classes").isNotEmpty();
		noClasses().should()
			.callMethod(NonBlockingThreads.class, "watch")
			.because("a class that installs BlockHound is skipped in this project's JVMs: it belongs in "
					+ "autoconfigure/tests-apart (autoconfigure/tests-parent/pom.xml lists its classes)")
			.check(classes);
	}

}
