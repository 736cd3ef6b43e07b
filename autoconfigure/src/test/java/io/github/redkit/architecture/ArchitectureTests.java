package io.github.redkit.architecture;

import java.util.List;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfiguration;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The rules the library's structure keeps, checked on its classes (as Spring Boot's own
 * architecture rules are): packages without cycles; the ground floor ({@code core}) knows
 * no capability; a capability knows no other capability, nor the endpoint or the regions
 * above them; an auto-configuration is final. See {@code docs/architecture.md}.
 */
class ArchitectureTests {

	/** The capabilities: each one package (with subpackages) of its own. */
	static final List<String> CAPABILITIES = List.of("budget", "cache", "concurrency", "idempotency", "lock", "pubsub",
			"queue", "ratelimit");

	private static final String ROOT = "io.github.redkit";

	private static final JavaClasses LIBRARY = new ClassFileImporter()
		.withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
		.importPackages(ROOT);

	@Test
	void packagesHaveNoCycles() {
		slices().matching(ROOT + ".(**)").should().beFreeOfCycles().check(LIBRARY);
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
	void autoConfigurationsAreFinal() {
		classes().that()
			.areAnnotatedWith(AutoConfiguration.class)
			.should()
			.haveModifier(com.tngtech.archunit.core.domain.JavaModifier.FINAL)
			.check(LIBRARY);
	}

	private static String[] above() {
		return concat(capabilities(), ROOT + ".region..", ROOT + ".actuate..", ROOT + ".autoconfigure..");
	}

	private static List<String> capabilities() {
		return CAPABILITIES.stream().map((capability) -> ROOT + "." + capability + "..").toList();
	}

	private static String[] concat(List<String> packages, String... more) {
		return java.util.stream.Stream.concat(packages.stream(), java.util.stream.Stream.of(more))
			.toArray(String[]::new);
	}

}
