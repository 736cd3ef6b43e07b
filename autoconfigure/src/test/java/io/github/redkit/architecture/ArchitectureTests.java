package io.github.redkit.architecture;

import java.util.List;
import java.util.Set;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaFieldAccess;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import io.github.redkit.core.internal.RedkitInterceptor;
import org.aopalliance.intercept.MethodInterceptor;
import org.junit.jupiter.api.Test;

import io.github.redkit.ratelimit.RateLimitAlgorithm;
import io.github.redkit.ratelimit.internal.AlgorithmDescriptor;
import io.github.redkit.ratelimit.internal.KnowsAnAlgorithmFixture;
import org.springframework.boot.autoconfigure.AutoConfiguration;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.codeUnits;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The rules the library's structure keeps, checked on its classes (as Spring Boot's own
 * architecture rules are): packages without cycles; the ground floor ({@code core}) knows
 * no capability; a capability knows no other capability, nor the endpoint or the regions
 * above them; an {@code internal} package serves only its capability and the wiring; an
 * implementation on Redis is internal; every interceptor extends the one base; an
 * auto-configuration is final; no constructor or method takes more than seven parameters.
 * See {@code docs/architecture.md}.
 */
class ArchitectureTests {

	private static final String ROOT = "io.github.redkit";

	/**
	 * The packages that are not capabilities: below them, beside them, above them, and
	 * the test support on the tests' class path.
	 */
	private static final Set<String> FLOORS = Set.of("core", "actuate", "autoconfigure", "region", "testsupport");

	private static final int MAX_PARAMETERS = 7;

	/**
	 * Every package is a slice, with its {@code internal} package: an API and its
	 * implementation are one unit that may call each other, and units are free of cycles.
	 */
	private static final SliceAssignment PACKAGES_WITH_THEIR_INTERNALS = new SliceAssignment() {

		@Override
		public SliceIdentifier getIdentifierOf(JavaClass type) {
			String name = type.getPackageName();
			return name.startsWith(ROOT) ? SliceIdentifier.of(name.replaceFirst("\\.internal(\\..*)?$", ""))
					: SliceIdentifier.ignore();
		}

		@Override
		public String getDescription() {
			return "packages of " + ROOT + ", each with its internal package";
		}

	};

	/**
	 * Public answers and settings whose components are their API (users read, and build,
	 * them by these components): their canonical constructors may take more.
	 */
	private static final Set<String> API_RECORDS = Set.of(ROOT + ".idempotency.StepClaim",
			ROOT + ".queue.QueueSettings", ROOT + ".ratelimit.RateLimitDecision");

	/**
	 * Public classes named for Redis outside an internal package: the key prefix is API.
	 */
	private static final Set<String> PUBLIC_ON_REDIS = Set.of(ROOT + ".core.RedisKeyspace");

	/**
	 * Adding an algorithm is one descriptor and its scripts: a comparison with one of the
	 * enum's constants, a switch over them, an {@code instanceof} of a descriptor's class
	 * elsewhere is a branch a new algorithm would miss. The enum itself and the two
	 * places that write the default algorithm ({@code RateLimitPolicy.of},
	 * {@code RateLimitProperties}) are the exceptions.
	 */
	private static final ArchRule ALGORITHMS_KNOWN_BY_THEIR_DESCRIPTORS = classes()
		.that(DescribedPredicate.describe("are not an algorithm's descriptor, the enum or where its default is written",
				(JavaClass type) -> !isOrIsInside(type, AlgorithmDescriptor.class)
						&& !isOrIsInside(type, RateLimitAlgorithm.class)
						&& !type.getName().startsWith(ROOT + ".ratelimit.RateLimitPolicy")
						&& !type.getName().startsWith(ROOT + ".autoconfigure.ratelimit.RateLimitProperties")))
		.should(new ArchCondition<JavaClass>("know no algorithm but through its descriptor") {

			@Override
			public void check(JavaClass type, ConditionEvents events) {
				type.getFieldAccessesFromSelf()
					.stream()
					.filter((access) -> access.getTargetOwner().isEquivalentTo(RateLimitAlgorithm.class))
					.forEach((access) -> events.add(SimpleConditionEvent.violated(type, access.getDescription())));
				type.getMethodCallsFromSelf()
					.stream()
					.filter((call) -> call.getTargetOwner().isEquivalentTo(RateLimitAlgorithm.class)
							&& Set.of("ordinal", "compareTo", "name").contains(call.getName()))
					.forEach((call) -> events.add(SimpleConditionEvent.violated(type, call.getDescription())));
				type.getDirectDependenciesFromSelf()
					.stream()
					.filter((dependency) -> isADescriptorsClass(dependency.getTargetClass()))
					.forEach((dependency) -> events
						.add(SimpleConditionEvent.violated(type, dependency.getDescription())));
			}

		})
		.allowEmptyShould(true);

	private static final JavaClasses LIBRARY = new ClassFileImporter()
		.withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
		.importPackages(ROOT);

	/**
	 * The capabilities, each a package (with subpackages) of its own under the root:
	 * every package there but the floors, so that a new capability is held by the rules
	 * without being named here.
	 */
	static final List<String> CAPABILITIES = LIBRARY.stream()
		.map((type) -> type.getPackageName())
		.filter((name) -> name.startsWith(ROOT + "."))
		.map((name) -> name.substring(ROOT.length() + 1).split("\\.")[0])
		.filter((name) -> !FLOORS.contains(name))
		.distinct()
		.sorted()
		.toList();

	@Test
	void everyCapabilityIsFound() {
		assertThat(CAPABILITIES).contains("ratelimit", "lock", "queue").doesNotContainAnyElementsOf(FLOORS);
	}

	@Test
	void packagesHaveNoCycles() {
		slices().assignedFrom(PACKAGES_WITH_THEIR_INTERNALS).should().beFreeOfCycles().check(LIBRARY);
	}

	@Test
	void theGroundFloorKnowsNoCapability() {
		noClasses().that()
			.resideInAPackage(ROOT + ".core..")
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage(above())
			.because("core is the ground floor every capability stands on")
			.check(LIBRARY);
	}

	@Test
	void aCapabilityKnowsNoOtherCapabilityNorWhatIsAboveIt() {
		for (String capability : CAPABILITIES) {
			List<String> others = CAPABILITIES.stream()
				.filter((other) -> !other.equals(capability))
				.map((other) -> ROOT + "." + other + "..")
				.toList();
			ArchRule rule = noClasses().that()
				.resideInAPackage(ROOT + "." + capability + "..")
				.should()
				.dependOnClassesThat()
				.resideInAnyPackage(concat(others, ROOT + ".region..", ROOT + ".autoconfigure.."))
				.because("a capability plugs in: it is added or removed without touching another");
			rule.check(LIBRARY);
			noClasses().that()
				.resideInAPackage(ROOT + "." + capability + "..")
				.and()
				.resideOutsideOfPackage(ROOT + "." + capability + ".actuate..")
				.should()
				.dependOnClassesThat()
				.resideInAPackage(ROOT + ".actuate..")
				.because("only a capability's own actuate package contributes to the endpoint")
				.check(LIBRARY);
		}
	}

	@Test
	void theEndpointKnowsNoCapability() {
		noClasses().that()
			.resideInAPackage(ROOT + ".actuate..")
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage(concat(capabilities(), ROOT + ".region.."))
			.because("each capability contributes its own section")
			.check(LIBRARY);
	}

	@Test
	void anInternalPackageIsUsedOnlyByItsOwnCapabilityAndTheWiring() {
		for (String unit : units(CAPABILITIES, "actuate", "region")) {
			noClasses().that()
				.resideOutsideOfPackages(ROOT + "." + unit + "..", ROOT + ".autoconfigure..")
				.should()
				.dependOnClassesThat()
				.resideInAPackage(ROOT + "." + unit + ".internal..")
				.because("an internal package is public only for its capability's own packages and the wiring")
				.check(LIBRARY);
		}
	}

	@Test
	void anImplementationOnRedisIsInternal() {
		classes().that()
			.resideInAPackage(ROOT + "..")
			.and()
			.resideOutsideOfPackages(ROOT + "..internal..", ROOT + ".autoconfigure..", ROOT + ".testsupport..")
			.and()
			.arePublic()
			.and()
			.areNotInterfaces()
			.and()
			.haveSimpleNameStartingWith("Redis")
			.and(DescribedPredicate.describe("are not kept public on purpose",
					(type) -> !PUBLIC_ON_REDIS.contains(type.getName())))
			.should()
			.beAssignableTo(Exception.class)
			.because("an implementation on Redis lives in its capability's internal package")
			.allowEmptyShould(true)
			.check(LIBRARY);
	}

	@Test
	void onlyTheAlgorithmDescriptorsKnowAnAlgorithm() {
		ALGORITHMS_KNOWN_BY_THEIR_DESCRIPTORS.check(LIBRARY);
	}

	@Test
	void theAlgorithmRuleCatchesADescriptorTestedOutsideTheDescriptors() {
		JavaClasses fixture = new ClassFileImporter().importClasses(KnowsAnAlgorithmFixture.class);
		assertThatExceptionOfType(AssertionError.class)
			.isThrownBy(() -> ALGORITHMS_KNOWN_BY_THEIR_DESCRIPTORS.check(fixture))
			.withMessageContaining("SlidingWindowAlgorithm")
			.withMessageContaining("FIXED_WINDOW")
			.withMessageContaining("ordinal");
	}

	@Test
	void aRateLimitDecisionRedisAnswersPassesNoFailurePolicy() {
		codeUnits().that()
			.areDeclaredInClassesThat()
			.resideInAPackage(ROOT + ".ratelimit.internal")
			.and(DescribedPredicate.describe("are not on the failure path",
					(JavaCodeUnit codeUnit) -> !codeUnit.getOwner().getSimpleName().equals("RateLimitFailurePolicy")
							&& !(codeUnit.getOwner().getSimpleName().equals("RedisRateLimiter")
									&& Set.of("failed", "answeredAfterFailure").contains(codeUnit.getName()))))
			.should(new ArchCondition<>("call no method of RateLimitFailurePolicy") {

				@Override
				public void check(JavaCodeUnit codeUnit, ConditionEvents events) {
					codeUnit.getMethodCallsFromSelf()
						.stream()
						.filter((call) -> call.getTargetOwner().getSimpleName().equals("RateLimitFailurePolicy"))
						.forEach((call) -> events.add(SimpleConditionEvent.violated(codeUnit, call.getDescription())));
				}

			})
			.because("a call Redis answers walks the limiter and the script only: the failure mode is reached "
					+ "through RedisRateLimiter.failed, and told that Redis answers again only after it decided")
			.check(LIBRARY);
	}

	@Test
	void everyInterceptorExtendsTheBase() {
		classes().that()
			.resideInAPackage(ROOT + "..")
			.and()
			.implement(MethodInterceptor.class)
			.and()
			.doNotHaveFullyQualifiedName(RedkitInterceptor.class.getName())
			.should()
			.beAssignableTo(RedkitInterceptor.class)
			.because("the base reads an annotation once per method and target class, for every capability alike")
			.check(LIBRARY);
	}

	@Test
	void autoConfigurationsAreFinal() {
		classes().that()
			.areAnnotatedWith(AutoConfiguration.class)
			.should()
			.haveModifier(JavaModifier.FINAL)
			.check(LIBRARY);
	}

	@Test
	void noConstructorOrMethodTakesMoreThanSevenParameters() {
		codeUnits().that()
			.areDeclaredInClassesThat()
			.resideInAPackage(ROOT + "..")
			.and(notSynthetic())
			.and(notTheConstructorOfAnApiRecord())
			.should(takeAtMost(MAX_PARAMETERS))
			.because("a long positional list is a record waiting to be named")
			.check(LIBRARY);
	}

	private static DescribedPredicate<JavaCodeUnit> notSynthetic() {
		return DescribedPredicate.describe("are not generated by the compiler",
				(codeUnit) -> !codeUnit.getModifiers().contains(JavaModifier.SYNTHETIC)
						&& !codeUnit.getModifiers().contains(JavaModifier.BRIDGE));
	}

	private static DescribedPredicate<JavaCodeUnit> notTheConstructorOfAnApiRecord() {
		return DescribedPredicate.describe("are not the constructor of a public record whose components are its API",
				(codeUnit) -> !(codeUnit.isConstructor() && codeUnit.getOwner().isRecord()
						&& API_RECORDS.contains(codeUnit.getOwner().getName())));
	}

	private static ArchCondition<JavaCodeUnit> takeAtMost(int max) {
		return new ArchCondition<>("take at most " + max + " parameters") {

			@Override
			public void check(JavaCodeUnit codeUnit, ConditionEvents events) {
				int count = codeUnit.getRawParameterTypes().size();
				if (count > max) {
					events.add(SimpleConditionEvent.violated(codeUnit,
							codeUnit.getFullName() + " takes " + count + " parameters"));
				}
			}

		};
	}

	/**
	 * Whether a class is assignable to a type, or is nested in one that is (a switch over
	 * an enum compiles to a synthetic class nested in the class that switches).
	 */
	// a class imported alone sees its dependencies as stubs: their hierarchy is the
	// library's
	private static boolean isADescriptorsClass(JavaClass target) {
		JavaClass known = LIBRARY.contain(target.getName()) ? LIBRARY.get(target.getName()) : target;
		return known.isAssignableTo(AlgorithmDescriptor.class) && !known.isEquivalentTo(AlgorithmDescriptor.class);
	}

	private static boolean isOrIsInside(JavaClass type, Class<?> outer) {
		if (type.isAssignableTo(outer)) {
			return true;
		}
		String outermost = type.getName().replaceFirst("\\$.*$", "");
		return !outermost.equals(type.getName()) && LIBRARY.contain(outermost)
				&& LIBRARY.get(outermost).isAssignableTo(outer);
	}

	private static String[] above() {
		return concat(capabilities(), ROOT + ".region..", ROOT + ".actuate..", ROOT + ".autoconfigure..");
	}

	private static List<String> capabilities() {
		return CAPABILITIES.stream().map((capability) -> ROOT + "." + capability + "..").toList();
	}

	private static List<String> units(List<String> units, String... more) {
		return java.util.stream.Stream.concat(units.stream(), java.util.stream.Stream.of(more)).toList();
	}

	private static String[] concat(List<String> packages, String first, String... more) {
		return java.util.stream.Stream
			.concat(packages.stream(),
					java.util.stream.Stream.concat(java.util.stream.Stream.of(first), java.util.stream.Stream.of(more)))
			.toArray(String[]::new);
	}

}
