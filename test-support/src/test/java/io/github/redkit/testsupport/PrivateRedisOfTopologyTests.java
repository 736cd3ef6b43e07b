package io.github.redkit.testsupport;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

/**
 * A static {@code @PrivateRedis(ofTopology = true)} field is one server per topology the
 * class runs on: its tests of one topology share it, and it is closed before the next
 * topology's tests start. The class below is run by a launcher of its own (surefire
 * leaves nested classes out).
 */
class PrivateRedisOfTopologyTests {

	@Test
	void theTestsOfATopologyShareAServerLikeItClosedOnceTheyAreDone() {
		OnEachTopology.seen.clear();
		Launcher launcher = LauncherFactory.create();
		SummaryGeneratingListener listener = new SummaryGeneratingListener();
		launcher.execute(LauncherDiscoveryRequestBuilder.request().selectors(selectClass(OnEachTopology.class)).build(),
				listener);
		assertThat(listener.getSummary().getFailures()).extracting(TestExecutionSummary.Failure::getException)
			.isEmpty();
		List<Seen> seen = OnEachTopology.seen;
		assertThat(seen).extracting(Seen::topology)
			.containsExactly(RedisTopology.STANDALONE, RedisTopology.STANDALONE, RedisTopology.OLDEST,
					RedisTopology.OLDEST);
		assertThat(seen.get(1).server()).as("the second standalone test's server").isSameAs(seen.get(0).server());
		assertThat(seen.get(3).server()).as("the second 6.2 test's server").isSameAs(seen.get(2).server());
		assertThat(seen.get(0).server().port()).as("the class's own, not the shared one")
			.isNotEqualTo(RedisServers.standalone().port());
		assertThat(seen.get(2).version()).as("a server like the topology").startsWith("6.2");
		assertThat(seen).extracting(Seen::previousAnswers)
			.as("the standalone server, asked from each test")
			.containsExactly(true, true, false, false);
		assertThat(answers(seen.get(2).server())).as("the 6.2 server, once its tests are done").isFalse();
	}

	private static boolean answers(RedisServer server) {
		try (RespClient client = RespClient.connect(RedisServer.HOST, server.port(), Duration.ofSeconds(2))) {
			return "PONG".equals(client.callForString("PING"));
		}
		catch (RuntimeException ex) {
			return false;
		}
	}

	/**
	 * What a test found: its topology, its server and that server's version, and whether
	 * the first test's server still answered.
	 */
	record Seen(RedisTopology topology, RedisServer server, String version, boolean previousAnswers) {

	}

	@ParameterizedClass
	@EnumSource(value = RedisTopology.class, names = { "STANDALONE", "OLDEST" })
	static class OnEachTopology {

		static final List<Seen> seen = new CopyOnWriteArrayList<>();

		@Parameter
		RedisTopology topology;

		@PrivateRedis(ofTopology = true)
		static RedisServer server;

		@Test
		void first() {
			see();
		}

		@Test
		void second() {
			see();
		}

		private void see() {
			boolean previousAnswers = answers(seen.isEmpty() ? server : seen.get(0).server());
			seen.add(new Seen(this.topology, server, server.version(), previousAnswers));
		}

	}

}
