package io.github.redkit.testsupport;

import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import com.tngtech.archunit.core.domain.JavaAccess;
import com.tngtech.archunit.core.domain.JavaAnnotation;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaMethod;
import com.tngtech.archunit.core.domain.JavaParameterizedType;
import com.tngtech.archunit.core.domain.JavaType;
import com.tngtech.archunit.core.domain.properties.HasSourceCodeLocation;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * The rule of {@code docs/testing.md} for the suites over the topologies, read from
 * compiled test classes: no test code runs a class over the topologies but through
 * {@link RedisTopologies @RedisTopologies(exercises = ...)}, which says what the suite
 * exercises and so where it can fail. A call or a reference to
 * {@link RedisTopology#selected()} or {@code RedisTopology.values()}, an
 * {@code @EnumSource} of {@link RedisTopology}, or a field, a method's parameter or
 * result that is a {@link Stream}, {@link List} or {@link Set} of them (a
 * {@code @MethodSource}'s) breaks it, however its source spells it (a static import, a
 * reference, an annotation's attributes in any order). {@link TopologyIntentTests} holds
 * it in every module whose tests depend on this one; naming one topology for what only it
 * has is no run over them.
 */
public final class TopologyIntent {

	private static final String TOPOLOGY = RedisTopology.class.getName();

	private static final Set<String> RUNS_OVER_THEM = Set.of("selected", "values");

	private static final Set<String> COLLECTIONS = Set.of(Stream.class.getName(), List.class.getName(),
			Set.class.getName());

	private static final String ENUM_SOURCE = "org.junit.jupiter.params.provider.EnumSource";

	private TopologyIntent() {
	}

	/**
	 * The rule: no class runs over the topologies without an intent.
	 * @return the rule, for {@link ArchRule#check(JavaClasses)}
	 */
	public static ArchRule rule() {
		return noClasses().should(runOverTheTopologiesWithoutAnIntent())
			.because("a suite declares @RedisTopologies(exercises = ...) and is listed in docs/testing.md's "
					+ "\"Suites per topology\"")
			.allowEmptyShould(true);
	}

	private static ArchCondition<JavaClass> runOverTheTopologiesWithoutAnIntent() {
		return new ArchCondition<>("run a class over the topologies without an intent") {

			@Override
			public void check(JavaClass javaClass, ConditionEvents events) {
				for (JavaAccess<?> access : javaClass.getAccessesFromSelf()) {
					if (access.getTargetOwner().getName().equals(TOPOLOGY)
							&& RUNS_OVER_THEM.contains(access.getTarget().getName())) {
						events.add(SimpleConditionEvent.satisfied(access, access.getDescription()));
					}
				}
				if (javaClass.tryGetAnnotationOfType(ENUM_SOURCE).filter(TopologyIntent::ofTopologies).isPresent()) {
					found(events, javaClass, javaClass.getName() + " is an @EnumSource of RedisTopology");
				}
				for (JavaMethod method : javaClass.getMethods()) {
					if (method.tryGetAnnotationOfType(ENUM_SOURCE).filter(TopologyIntent::ofTopologies).isPresent()) {
						found(events, method, method.getFullName() + " is an @EnumSource of RedisTopology");
					}
					if (holdsTopologies(method.getReturnType())
							|| method.getParameterTypes().stream().anyMatch(TopologyIntent::holdsTopologies)) {
						found(events, method, method.getFullName() + " takes or returns a collection of RedisTopology");
					}
				}
				for (JavaField field : javaClass.getFields()) {
					if (holdsTopologies(field.getType())) {
						found(events, field, field.getFullName() + " is a collection of RedisTopology");
					}
				}
			}

		};
	}

	private static void found(ConditionEvents events, HasSourceCodeLocation where, String what) {
		events.add(SimpleConditionEvent.satisfied(where, what + " in " + where.getSourceCodeLocation()));
	}

	private static boolean ofTopologies(JavaAnnotation<?> enumSource) {
		return enumSource.get("value")
			.filter((value) -> value instanceof JavaClass type && type.getName().equals(TOPOLOGY))
			.isPresent();
	}

	private static boolean holdsTopologies(JavaType type) {
		return type instanceof JavaParameterizedType parameterized
				&& COLLECTIONS.contains(parameterized.toErasure().getName())
				&& parameterized.getActualTypeArguments()
					.stream()
					.anyMatch((argument) -> argument.getName().equals(TOPOLOGY));
	}

}
