package io.github.redkit.testsupport;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

/**
 * A misdeclared {@link PrivateRedis} fails its class loudly instead of leaving a field
 * {@code null}: the classes below are run by a launcher of their own (surefire leaves
 * nested classes out).
 */
class PrivateRedisMisuseTests {

	@Test
	void aNonStaticFieldFailsItsClassNamingTheField() {
		List<Throwable> failures = failuresOf(InstanceField.class);
		assertThat(failures).singleElement()
			.satisfies((failure) -> assertThat(failure).hasMessageContaining("server")
				.hasMessageContaining(InstanceField.class.getName())
				.hasMessageContaining("static"));
	}

	@Test
	void aProxiedClusterOfAServerThatIsNoClusterFailsItsClassNamingTheField() {
		List<Throwable> failures = failuresOf(ProxiedStandalone.class);
		assertThat(failures).singleElement()
			.satisfies((failure) -> assertThat(failure).hasMessageContaining("proxied")
				.hasMessageContaining("cluster = true"));
	}

	private static List<Throwable> failuresOf(Class<?> testClass) {
		Launcher launcher = LauncherFactory.create();
		SummaryGeneratingListener listener = new SummaryGeneratingListener();
		launcher.execute(LauncherDiscoveryRequestBuilder.request().selectors(selectClass(testClass)).build(), listener);
		return listener.getSummary().getFailures().stream().map(TestExecutionSummary.Failure::getException).toList();
	}

	/**
	 * A server field of each test instance: the extension starts class-wide servers only.
	 */
	static class InstanceField {

		@PrivateRedis
		RedisServer server;

		@Test
		void usesTheServer() {
			assertThat(this.server).isNotNull();
		}

	}

	/**
	 * A proxied cluster of the class's standalone server.
	 */
	static class ProxiedStandalone {

		@PrivateRedis
		static RedisServer server;

		@PrivateRedis
		static ProxiedCluster proxied;

		@Test
		void usesTheCluster() {
			assertThat(proxied).isNotNull();
		}

	}

}
