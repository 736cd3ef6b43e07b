package io.github.redkit.testsupport;

import java.util.Collection;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import com.tngtech.archunit.core.domain.JavaAccess;
import com.tngtech.archunit.core.domain.JavaAnnotation;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaEnumConstant;
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
 * reference, an annotation's attributes in any order), and so does a parameterized test
 * or class taking a {@link RedisTopology} without the annotation (whatever its source),
 * an array of them, or a code that makes an {@link EnumSet} of the enum's class.
 * {@link TopologyIntentTests} holds it in every module whose tests depend on this one;
 * naming one topology for what only it has is no run over them.
 */
public final class TopologyIntent {

	private static final String TOPOLOGY = RedisTopology.class.getName();

	private static final Set<String> RUNS_OVER_THEM = Set.of("selected", "values");

	private static final Set<String> COLLECTIONS = Set.of(Stream.class.getName(), List.class.getName(),
			Set.class.getName(), EnumSet.class.getName(), Collection.class.getName(), Iterable.class.getName());

	private static final String ENUM_SOURCE = "org.junit.jupiter.params.provider.EnumSource";

	private static final String PARAMETERIZED_TEST = "org.junit.jupiter.params.ParameterizedTest";

	private static final String PARAMETERIZED_CLASS = "org.junit.jupiter.params.ParameterizedClass";

	private static final String INTENT = RedisTopologies.class.getName();

	/** A row of the table "Suites per topology": the suite and its intent. */
	private static final Pattern ROW = Pattern.compile("^\\| `(\\w+Tests)` \\| (\\w+) \\|(.*)\\|$");

	private TopologyIntent() {
	}

	/**
	 * The suites among compiled test classes and what each declares it exercises: the
	 * top-level classes with {@link RedisTopologies @RedisTopologies} on themselves or on
	 * a method, by simple name, as {@code docs/testing.md}'s table names them.
	 * @param classes compiled test classes
	 * @return the intent of each suite, by its simple name
	 */
	public static Map<String, Exercises> declaredSuites(JavaClasses classes) {
		Map<String, Exercises> declared = new TreeMap<>();
		for (JavaClass javaClass : classes) {
			Stream.concat(Stream.of(javaClass), javaClass.getMethods().stream())
				.flatMap((member) -> member.tryGetAnnotationOfType(INTENT).stream())
				.flatMap((intent) -> intent.get("exercises").stream())
				.findFirst()
				.ifPresent((exercises) -> declared.put(HandStartedServers.topLevel(javaClass).getSimpleName(),
						Exercises.valueOf(((JavaEnumConstant) exercises).name())));
		}
		return declared;
	}

	/**
	 * The suites {@code docs/testing.md}'s table "Suites per topology" lists, with the
	 * intent each is listed with.
	 * @param guide the lines of {@code docs/testing.md}
	 * @return the intent of each listed suite, by its simple name
	 * @throws IllegalStateException when a suite is listed twice
	 */
	public static Map<String, Exercises> listedSuites(List<String> guide) {
		Map<String, Exercises> listed = new TreeMap<>();
		for (String line : guide) {
			Matcher row = ROW.matcher(line);
			if (row.matches() && listed.put(row.group(1), Exercises.valueOf(row.group(2))) != null) {
				throw new IllegalStateException("docs/testing.md lists " + row.group(1) + " twice");
			}
		}
		return listed;
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
				if (javaClass.isAnnotatedWith(PARAMETERIZED_CLASS) && !javaClass.isAnnotatedWith(INTENT)
						&& javaClass.getConstructors()
							.stream()
							.anyMatch((constructor) -> takesATopology(constructor.getRawParameterTypes()))) {
					found(events, javaClass, javaClass.getName() + " is parameterized by RedisTopology");
				}
				for (JavaCodeUnit codeUnit : javaClass.getCodeUnits()) {
					if (listsEveryTopology(codeUnit)) {
						found(events, codeUnit, codeUnit.getFullName() + " makes a set of every RedisTopology");
					}
				}
				for (JavaMethod method : javaClass.getMethods()) {
					if (method.tryGetAnnotationOfType(ENUM_SOURCE).filter(TopologyIntent::ofTopologies).isPresent()) {
						found(events, method, method.getFullName() + " is an @EnumSource of RedisTopology");
					}
					if (method.isAnnotatedWith(PARAMETERIZED_TEST) && !method.isAnnotatedWith(INTENT)
							&& takesATopology(method.getRawParameterTypes())) {
						found(events, method, method.getFullName() + " is a parameterized test of RedisTopology");
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

	/**
	 * A parameterized test's or class's {@link RedisTopology} parameter: the topologies
	 * come from a source (an {@code @EnumSource} whose type is the parameter's, a
	 * {@code @MethodSource} of {@code Arguments}, a {@code @CsvSource} of names) that no
	 * intent chose.
	 */
	private static boolean takesATopology(List<JavaClass> parameters) {
		return parameters.stream()
			.anyMatch((type) -> type.getName().equals(TOPOLOGY)
					|| (type.isArray() && type.getComponentType().getName().equals(TOPOLOGY)));
	}

	/** {@code EnumSet.allOf(RedisTopology.class)} and the like. */
	private static boolean listsEveryTopology(JavaCodeUnit codeUnit) {
		return codeUnit.getReferencedClassObjects()
			.stream()
			.anyMatch((reference) -> reference.getRawType().getName().equals(TOPOLOGY))
				&& codeUnit.getMethodCallsFromSelf()
					.stream()
					.anyMatch((call) -> call.getTargetOwner().getName().equals(EnumSet.class.getName())
							|| call.getTarget().getName().equals("getEnumConstants"));
	}

	private static boolean holdsTopologies(JavaType type) {
		if (type instanceof JavaClass javaClass && javaClass.isArray()) {
			return javaClass.getComponentType().getName().equals(TOPOLOGY);
		}
		return type instanceof JavaParameterizedType parameterized
				&& COLLECTIONS.contains(parameterized.toErasure().getName())
				&& parameterized.getActualTypeArguments()
					.stream()
					.anyMatch((argument) -> argument.getName().equals(TOPOLOGY));
	}

}
