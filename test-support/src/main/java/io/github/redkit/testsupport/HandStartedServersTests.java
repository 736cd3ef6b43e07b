package io.github.redkit.testsupport;

import com.tngtech.archunit.core.domain.JavaClasses;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Holds {@link HandStartedServers#rule()} over the compiled test and main classes of the
 * module running it, and {@link KeysCommandCalls#rule()} over its test classes: every
 * module whose tests depend on {@code redkit-test-support} runs this class from its jar
 * (surefire's {@code dependenciesToScan} in the parent POM's {@code hand-started-servers}
 * profile), so that the rule sees each module's classes once they are compiled, whatever
 * order a parallel build takes. Tagged {@code test-code-rules}:
 * {@code autoconfigure/tests-apart} runs the classes of its executions by tag.
 */
@Tag("test-code-rules")
class HandStartedServersTests {

	@Test
	void noTestCodeStartsARedisOfItsOwnByHand() {
		HandStartedServers.rule().check(testClasses());
	}

	@Test
	void noTestCodeListsKeysWithTheKeysCommand() {
		KeysCommandCalls.rule().check(testClasses());
	}

	@Test
	void noMainCodeStartsARedisButTheClassesListed() {
		HandStartedServers.rule().check(HandStartedServers.mainClassesOfThisModule());
	}

	@Test
	void theClassesAllowedToStartServersHereStillDo() {
		theClassesAllowedToStartServersStillDo(testClasses());
		theClassesAllowedToStartServersStillDo(HandStartedServers.mainClassesOfThisModule());
	}

	private static void theClassesAllowedToStartServersStillDo(JavaClasses classes) {
		HandStartedServers.ON_PURPOSE.keySet()
			.stream()
			.filter(classes::contain)
			.forEach((name) -> assertTrue(
					classes.stream()
						.filter((javaClass) -> javaClass.getName().equals(name)
								|| javaClass.getName().startsWith(name + "$"))
						.anyMatch((javaClass) -> javaClass.getAccessesFromSelf()
							.stream()
							.anyMatch((access) -> HandStartedServers.startsAServer(javaClass, access))),
					() -> name + " is listed in HandStartedServers.ON_PURPOSE but starts no server: take it out"));
	}

	private static JavaClasses testClasses() {
		return HandStartedServers.testClassesOfThisModule();
	}

}
