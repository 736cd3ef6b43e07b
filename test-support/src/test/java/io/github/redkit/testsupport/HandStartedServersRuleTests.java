package io.github.redkit.testsupport;

import java.util.List;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.EvaluationResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link HandStartedServers#rule()} catches a start however its source spells it, read
 * from the compiled {@link HandStartedFixtures}.
 */
class HandStartedServersRuleTests {

	@ParameterizedTest
	@ValueSource(classes = { HandStartedFixtures.PlainCall.class, HandStartedFixtures.StaticImport.class,
			HandStartedFixtures.MethodReference.class, HandStartedFixtures.SplitOverTwoLines.class,
			HandStartedFixtures.InALambda.class, HandStartedFixtures.EmbeddedRedisConstructor.class,
			HandStartedFixtures.ProcessBuilderOfTheServer.class, HandStartedFixtures.RuntimeExecOfTheServer.class,
			HandStartedFixtures.ProcessBuilderOfTheLocatedBinary.class })
	void aStartIsCaughtHoweverItIsSpelled(Class<?> fixture) {
		assertThat(violations(fixture)).singleElement()
			.asString()
			.contains(fixture.getName())
			.contains(HandStartedFixtures.class.getSimpleName() + ".java:");
	}

	@Test
	void usingAGivenOrTheSharedServerIsNoStart() {
		assertThat(violations(HandStartedFixtures.GivenServers.class)).isEmpty();
	}

	@Test
	void aProcessThatIsNoServerIsNoStart() {
		assertThat(violations(HandStartedFixtures.OtherProcess.class)).isEmpty();
	}

	@Test
	void thisModulesOwnServerProcessIsNoHandStart() {
		assertThat(violations(RedisProcess.class)).isEmpty();
	}

	private static List<String> violations(Class<?> fixture) {
		JavaClasses classes = new ClassFileImporter().importClasses(fixture);
		EvaluationResult result = HandStartedServers.rule().evaluate(classes);
		return result.getFailureReport().getDetails();
	}

}
