package io.github.redkit.testsupport;

import java.util.List;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link TopologyIntent#rule()} catches a run over the topologies however its source
 * spells it, read from the compiled {@link TopologyFixtures}.
 */
class TopologyIntentRuleTests {

	@ParameterizedTest
	@ValueSource(classes = { TopologyFixtures.SelectedByAStaticImport.class, TopologyFixtures.ValuesByAReference.class,
			TopologyFixtures.EnumSourceWithItsAttributesSwapped.class, TopologyFixtures.MethodSourceOfItsOwn.class,
			TopologyFixtures.EnumSourceWithTheTypeInferred.class, TopologyFixtures.MethodSourceOfArguments.class,
			TopologyFixtures.EnumSetOfThemAll.class, TopologyFixtures.ArrayOfThem.class })
	void aRunWithoutAnIntentIsCaughtHoweverItIsSpelled(Class<?> fixture) {
		assertThat(violations(fixture)).isNotEmpty()
			.allSatisfy(
					(violation) -> assertThat(violation).contains(TopologyFixtures.class.getSimpleName() + ".java:"));
	}

	@Test
	void aSuiteWithAnIntentAndANamedTopologyAreNoRunWithoutOne() {
		assertThat(violations(TopologyFixtures.WithAnIntent.class)).isEmpty();
	}

	@Test
	void aParameterizedTestWithAnIntentAndAMapByTopologyAreNoRunWithoutOne() {
		assertThat(violations(TopologyFixtures.MethodWithAnIntent.class)).isEmpty();
	}

	private static List<String> violations(Class<?> fixture) {
		return TopologyIntent.rule()
			.evaluate(new ClassFileImporter().importClasses(fixture))
			.getFailureReport()
			.getDetails();
	}

}
