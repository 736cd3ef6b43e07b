package io.github.redkit.testsupport;

import java.util.function.Supplier;
import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

import static io.github.redkit.testsupport.RedisTopology.selected;

/**
 * Test code that runs over the topologies, each spelled its own way, for
 * {@link TopologyIntentRuleTests}; nothing here runs.
 */
final class TopologyFixtures {

	private TopologyFixtures() {
	}

	static final class SelectedByAStaticImport {

		Object topologies() {
			return selected(Exercises.SCRIPTS);
		}

	}

	static final class ValuesByAReference {

		Supplier<RedisTopology[]> topologies() {
			return RedisTopology::values;
		}

	}

	static final class EnumSourceWithItsAttributesSwapped {

		@ParameterizedTest
		@EnumSource(names = { "STANDALONE", "CLUSTER" }, value = RedisTopology.class)
		void runs(RedisTopology topology) {
		}

	}

	static final class MethodSourceOfItsOwn {

		@ParameterizedTest
		@MethodSource("topologies")
		void runs(RedisTopology topology) {
		}

		static Stream<RedisTopology> topologies() {
			return Stream.of(RedisTopology.STANDALONE, RedisTopology.CLUSTER);
		}

	}

	/** A suite that says what it exercises, and a test that names one topology. */
	@RedisTopologies(exercises = Exercises.SCRIPTS)
	static final class WithAnIntent {

		private final RedisTopology topology;

		WithAnIntent(RedisTopology topology) {
			this.topology = topology;
		}

		boolean onACluster() {
			return this.topology == RedisTopology.CLUSTER && RedisTopology.CLUSTER.server().isCluster();
		}

	}

}
