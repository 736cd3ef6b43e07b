package io.github.redkit.upgrade;

import java.util.ArrayList;
import java.util.List;

import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two instances in one region, on one Redis, through an upgrade from the previous release
 * to this build and a rollback: old only, mixed, new only, mixed, old only. Each
 * version's instances run in a JVM of that version, on its class path, driving every
 * capability at once; the merged history is judged by a checker per promise. The same in
 * two regions: {@link MixedVersionRegionsTests}.
 */
class MixedVersionTests {

	private static final List<String> ONE_REGION = List.of("eu");

	@PrivateRedis
	private static RedisServer server;

	@Test
	void aFleetInOneRegionKeepsEveryPromiseThroughAnUpgradeAndARollback() throws Exception {
		List<Entry> history = UpgradeRun.versions()
			.upgrade("one-region", true, (slot) -> UpgradeRun.properties("one", server, List.of()));
		List<String> violations = new ArrayList<>();
		violations.addAll(RateLimitBound.check(history, ONE_REGION));
		violations.addAll(UpgradeRun.common(history, ONE_REGION));
		assertThat(violations).isEmpty();
	}

}
