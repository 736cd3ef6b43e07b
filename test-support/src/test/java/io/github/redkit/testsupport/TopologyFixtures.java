package io.github.redkit.testsupport;

import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
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

	static final class EnumSourceWithTheTypeInferred {

		@ParameterizedTest
		@EnumSource(names = { "STANDALONE", "CLUSTER" })
		void runs(RedisTopology topology) {
		}

	}

	static final class MethodSourceOfArguments {

		@ParameterizedTest
		@MethodSource("topologies")
		void runs(RedisTopology topology, String name) {
		}

		static Stream<Arguments> topologies() {
			return Stream.of(Arguments.of(RedisTopology.STANDALONE, "one"), Arguments.of(RedisTopology.CLUSTER, "two"));
		}

	}

	static final class EnumSetOfThemAll {

		Set<?> topologies() {
			return EnumSet.allOf(RedisTopology.class);
		}

	}

	static final class ArrayOfThem {

		RedisTopology[] topologies() {
			return new RedisTopology[] { RedisTopology.STANDALONE, RedisTopology.CLUSTER };
		}

	}

	/**
	 * A parameterized test that says what it exercises, and a context kept for each
	 * topology.
	 */
	static final class MethodWithAnIntent {

		private final Map<RedisTopology, Object> contexts = new EnumMap<>(RedisTopology.class);

		@ParameterizedTest
		@RedisTopologies(exercises = Exercises.NODES)
		void runs(RedisTopology topology) {
			this.contexts.put(topology, topology.name());
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
