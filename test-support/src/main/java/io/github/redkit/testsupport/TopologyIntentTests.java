package io.github.redkit.testsupport;

import org.junit.jupiter.api.Test;

/**
 * Holds {@link TopologyIntent#rule()} over the compiled test classes of the module
 * running it, from this module's jar in every module whose tests depend on it, as
 * {@link HandStartedServersTests} does for its rule.
 */
class TopologyIntentTests {

	@Test
	void noTestCodeRunsAClassOverTheTopologiesWithoutAnIntent() {
		TopologyIntent.rule().check(HandStartedServers.testClassesOfThisModule());
	}

}
