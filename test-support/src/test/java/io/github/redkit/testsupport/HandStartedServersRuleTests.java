package io.github.redkit.testsupport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.EvaluationResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

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
			HandStartedFixtures.ProcessBuilderOfTheLocatedBinary.class, HandStartedFixtures.StartOfAGivenServer.class,
			HandStartedFixtures.ContainerOfAnotherModule.class })
	void aStartIsCaughtHoweverItIsSpelled(Class<?> fixture) {
		assertThat(violations(fixture)).singleElement()
			.asString()
			.contains(fixture.getName())
			.contains(HandStartedFixtures.class.getSimpleName() + ".java:");
	}

	@Test
	void aServerBinaryAHelperClassGivesIsCaughtWhereItIsStarted() {
		assertThat(violations(HandStartedFixtures.ProcessBuilderOfAHelpersBinary.class,
				HandStartedFixtures.ServerBinary.class))
			.singleElement()
			.asString()
			.contains(HandStartedFixtures.ProcessBuilderOfAHelpersBinary.class.getName());
	}

	@Test
	void restartingAServerItStoppedIsNoStart() {
		assertThat(violations(HandStartedFixtures.Restart.class)).isEmpty();
	}

	@Test
	void aModuleWhoseTestClassesAreNotWhereTheRuleReadsFailsInsteadOfPassing(@TempDir Path module) throws IOException {
		Path source = module.resolve(Path.of("src", "test", "java", "example", "ExampleTests.java"));
		Files.createDirectories(source.getParent());
		Files.writeString(source, "package example; class ExampleTests {}");
		assertThatIllegalStateException().isThrownBy(() -> HandStartedServers.testClassesOf(module))
			.withMessageContaining("example.ExampleTests");
	}

	@Test
	void sourcesAnotherProjectCompilesAreNotAskedForHere(@TempDir Path module) throws IOException {
		Path source = module.resolve(Path.of("src", "test", "java", "example", "ReactiveExampleTests.java"));
		Files.createDirectories(source.getParent());
		Files.writeString(source, "package example; class ReactiveExampleTests {}");
		Files.createDirectories(module.resolve(Path.of("target", "test-classes")));
		String previous = System.setProperty("redkit.test-sources.compiled-elsewhere", "**/Reactive*Tests.java");
		try {
			assertThat(HandStartedServers.testClassesOf(module)).isEmpty();
		}
		finally {
			if (previous != null) {
				System.setProperty("redkit.test-sources.compiled-elsewhere", previous);
			}
			else {
				System.clearProperty("redkit.test-sources.compiled-elsewhere");
			}
		}
	}

	@Test
	void aModuleWithoutTestSourcesOfItsOwnIsReadWhereItCompiledAnotherFoldersTests(@TempDir Path module)
			throws IOException {
		assertThatIllegalStateException()
			.isThrownBy(() -> HandStartedServers.testClassesOf(module.resolve("nothing-compiled")))
			.withMessageContaining("no compiled test class");
		Path compiled = module.resolve(Path.of("target", "test-classes", "io", "github", "redkit", "testsupport"));
		Files.createDirectories(compiled);
		String name = HandStartedServersRuleTests.class.getSimpleName() + ".class";
		try (var in = HandStartedServersRuleTests.class.getResourceAsStream(name)) {
			Files.copy(in, compiled.resolve(name));
		}
		assertThat(HandStartedServers.testClassesOf(module).contain(HandStartedServersRuleTests.class)).isTrue();
	}

	@Test
	void theTestClassesOfThisModuleAreRead() {
		assertThat(HandStartedServers.testClassesOfThisModule().contain(HandStartedServersRuleTests.class)).isTrue();
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

	private static List<String> violations(Class<?>... fixtures) {
		JavaClasses classes = new ClassFileImporter().importClasses(fixtures);
		EvaluationResult result = HandStartedServers.rule().evaluate(classes);
		return result.getFailureReport().getDetails();
	}

}
