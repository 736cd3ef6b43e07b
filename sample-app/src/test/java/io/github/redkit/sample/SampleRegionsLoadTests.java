package io.github.redkit.sample;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;

import io.github.redkit.ratelimit.RateLimitDecisionListener;
import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.context.annotation.Bean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample's {@code offers} limit (20 a second, marked global) on two regions, two
 * applications on two Redis servers, each hammered by its own {@code wrk}: every allowed
 * call is placed on Redis' clock, and over every second of the run each region allows at
 * most the limit of its own calls and both together at most the bound
 * {@code docs/multi-region.md} states for connected regions (the limit plus what the
 * other allows before it sees those calls, capped at R × limit).
 */
class SampleRegionsLoadTests {

	private static final int LIMIT = 20;

	private static final long PERIOD_MILLIS = 1_000;

	private static final int CONNECTIONS = 8;

	@BeforeEach
	void needsWrk() {
		// before the test's servers start
		Wrk.assumeInstalled();
	}

	@Test
	void twoWrksOnTwoRegionsStayWithinTheGlobalBoundInEverySecond(@PrivateRedis RedisServer euRedis,
			@PrivateRedis RedisServer usRedis) throws Exception {
		try (SampleClient us = SampleClient.on(usRedis, OfferDecisions.class, "--spring.profiles.active=regions",
				"--redkit.regions.local=us", "--redkit.regions.peers.eu.url=redis://127.0.0.1:" + euRedis.port());
				SampleClient eu = SampleClient.on(euRedis, OfferDecisions.class, "--spring.profiles.active=regions",
						"--redkit.regions.local=eu",
						"--redkit.regions.peers.us.url=redis://127.0.0.1:" + usRedis.port())) {
			assertThat(eu.get("/api/regions/campaign/offer").statusCode()).isEqualTo(200);
			Wrk euLoad = Wrk.start("offers.lua", eu.base() + "/api/regions/campaign/offer", CONNECTIONS,
					Duration.ofSeconds(8), Map.of());
			Wrk usLoad = Wrk.start("offers.lua", us.base() + "/api/regions/campaign/offer", CONNECTIONS,
					Duration.ofSeconds(8), Map.of());
			Wrk.Totals euTotals = euLoad.finish();
			Wrk.Totals usTotals = usLoad.finish();
			List<Long> euAllowed = eu.bean(OfferDecisions.class).times();
			List<Long> usAllowed = us.bean(OfferDecisions.class).times();
			// wrk stops counting at its deadline: a call in flight then was decided but
			// not
			// counted; eu also decided the first call above
			assertThat(euAllowed.size() - 1 - euTotals.succeeded()).as(euTotals.output())
				.isBetween(0L, (long) CONNECTIONS);
			assertThat(usAllowed.size() - usTotals.succeeded()).as(usTotals.output()).isBetween(0L, (long) CONNECTIONS);
			List<Long> both = Stream.concat(euAllowed.stream(), usAllowed.stream()).sorted().toList();
			int euBusiest = BusiestPeriod.of(euAllowed, PERIOD_MILLIS);
			int usBusiest = BusiestPeriod.of(usAllowed, PERIOD_MILLIS);
			int busiest = BusiestPeriod.of(both, PERIOD_MILLIS);
			System.out.printf("Global rate limit through wrk (limit %d per second, 2 regions, %d connections each, "
					+ "8 s): eu %d requests, %d allowed, %d in its busiest second; us %d requests, %d allowed, %d; "
					+ "both %d allowed, %d in the busiest second (bound %d)%n", LIMIT, CONNECTIONS, euTotals.requests(),
					euAllowed.size(), euBusiest, usTotals.requests(), usAllowed.size(), usBusiest, both.size(), busiest,
					2 * LIMIT);
			assertThat(euBusiest).as("eu's own calls in one second").isLessThanOrEqualTo(LIMIT);
			assertThat(usBusiest).as("us's own calls in one second").isLessThanOrEqualTo(LIMIT);
			assertThat(busiest).as("both regions' calls in one second").isBetween(LIMIT, 2 * LIMIT);
			assertThat(euTotals.refused()).isPositive();
			assertThat(usTotals.refused()).isPositive();
		}
	}

	/**
	 * Records when Redis counted each call the {@code offers} limit let through in one
	 * region (a source of that region's application, so not a scanned component).
	 */
	static class OfferDecisions {

		private final List<Instant> allowed = new CopyOnWriteArrayList<>();

		@Bean
		RateLimitDecisionListener offerDecisions() {
			return (limitName, policy, decision) -> {
				Instant decidedAt = decision.decidedAt();
				if (limitName.equals("offers") && decidedAt != null) {
					this.allowed.add(decidedAt);
				}
			};
		}

		List<Long> times() {
			return this.allowed.stream().map(Instant::toEpochMilli).sorted().toList();
		}

	}

}
