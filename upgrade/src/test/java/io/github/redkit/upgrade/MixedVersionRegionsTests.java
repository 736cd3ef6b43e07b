package io.github.redkit.upgrade;

import java.util.ArrayList;
import java.util.List;

import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link MixedVersionTests} in two regions, one instance each on its own Redis, with a
 * regional counter, an allotted regional budget and a global limit besides. Tagged
 * {@code full}: it runs with the profile {@code upgrade-full}, not in the CI's build
 * (docs/testing.md says why).
 */
@Tag("full")
class MixedVersionRegionsTests {

	private static final List<String> TWO_REGIONS = List.of("eu", "us");

	@PrivateRedis(count = 2)
	private static List<RedisServer> servers;

	@Test
	void aFleetInTwoRegionsKeepsEveryPromiseThroughAnUpgradeAndARollback() throws Exception {
		List<Entry> history = UpgradeRun.versions().upgrade("two-regions", false, (slot) -> {
			RedisServer local = servers.get(slot);
			RedisServer peer = servers.get(1 - slot);
			return UpgradeRun.properties("two", local, List.of("upgrade.region=" + TWO_REGIONS.get(slot),
					"upgrade.regions=eu,us", "redkit.regions.local=" + TWO_REGIONS.get(slot), "redkit.regions.peers."
							+ TWO_REGIONS.get(1 - slot) + ".url=redis://" + RedisServer.HOST + ":" + peer.port(),
					"redkit.regions.replication.interval=20ms", "redkit.regions.timeout=10s"));
		});
		List<String> violations = new ArrayList<>();
		violations.addAll(RateLimitBound.check(history, TWO_REGIONS));
		violations.addAll(UpgradeRun.common(history, TWO_REGIONS));
		violations.addAll(RegionalTotals.check(history, TWO_REGIONS));
		assertThat(violations).isEmpty();
	}

}
