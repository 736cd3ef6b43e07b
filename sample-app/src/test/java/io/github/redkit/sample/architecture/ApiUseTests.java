package io.github.redkit.sample.architecture;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * What code outside the library may use of it, checked on code written as a user's: the
 * sample application and Redkit's test module use the API only, never an {@code internal}
 * package (public there for the library's own wiring).
 */
class ApiUseTests {

	private static final JavaClasses USERS = new ClassFileImporter()
		.withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
		.importPackages("io.github.redkit.sample", "io.github.redkit.test.boot");

	@Test
	void usersReachNoInternalPackage() {
		noClasses().should()
			.dependOnClassesThat()
			.resideInAPackage("io.github.redkit..internal..")
			.because("an internal package may change in any release")
			.check(USERS);
	}

}
