package io.github.redkit.upgrade;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each checker of the mixed-version test flags what a fleet that breaks its promise would
 * write, and passes what a fleet that keeps it writes: histories made by hand, and one
 * recorded from a live fleet whose new version reads nothing of the old one's keys; no
 * server.
 */
class CheckersTests {

	private static final List<String> EU = List.of("eu");

	private static final String LAYOUT_BREAK = "/recorded/layout-break.jsonl.gz";

	@Test
	void aWindowThatDoublesDuringTheUpgradeIsCaught() {
		List<Entry> history = new ArrayList<>();
		for (int i = 0; i < 2 * RateLimitBound.LIMIT; i++) {
			// each version counts apart (a layout read by one only): twice the limit in
			// 100 ms
			history.add(entry("rate-limit", "acquire", "sw", i, "ok", "version", (i % 2 == 0) ? "0.1.0" : "current",
					"at", 1_000_000L + i * 100, "local", false));
		}
		history.add(entry("rate-limit", "acquire", "sw", 50, "refused", "local", false, "at", 1_000_000L + 5000));
		assertThat(RateLimitBound.check(history, EU)).singleElement()
			.asString()
			.contains("21 allowed within 500 ms (bound 20)");
		assertThat(RateLimitBound.check(history.subList(RateLimitBound.LIMIT, history.size()), EU)).isEmpty();
	}

	@Test
	void twoHoldersOfOneLockAreCaught() {
		Entry first = entry("lock", "hold", "l", 0, "ok", "token", 5L, "held", true, "end", 100L);
		Entry overlapping = entry("lock", "hold", "l", 50, "ok", "token", 6L, "held", true, "end", 150L);
		Entry lowerToken = entry("lock", "hold", "l", 200, "ok", "token", 4L, "held", true, "end", 250L);
		assertThat(LockHolds.check(List.of(first, overlapping), EU)).singleElement().asString().contains("two holders");
		assertThat(LockHolds.check(List.of(first, lowerToken), EU)).singleElement()
			.asString()
			.contains("did not increase");
	}

	@Test
	void aBudgetCreatedAgainOrAUnitCreatedIsCaught() {
		List<Entry> history = new ArrayList<>(List.of(entry("budget", "create", "b", 0, "ok", "created", true),
				entry("budget", "spend", "b", 1, "ok", "id", "op-1", "amount", 3L, "remaining", BudgetLoad.AMOUNT - 3),
				entry("budget", "spend", "b", 2, "ok", "id", "op-1", "amount", 3L, "remaining",
						BudgetLoad.AMOUNT - 3)));
		history.add(entry("budget", "final", "b", 3, "ok", "remaining", BudgetLoad.AMOUNT - 3));
		assertThat(BudgetUnits.check(history, EU)).isEmpty();
		// a version that starts afresh: created again, and the spend's units back
		history.add(entry("budget", "create", "b", 4, "ok", "created", true));
		history.set(3, entry("budget", "final", "b", 5, "ok", "remaining", BudgetLoad.AMOUNT));
		assertThat(BudgetUnits.check(history, EU)).hasSize(2);
	}

	@Test
	void aMessageLostOrDeliveredAgainIsCaught() {
		List<Entry> history = List.of(entry("queue", "send", "q", 0, "ok", "id", "m1"),
				entry("queue", "send", "q", 1, "ok", "id", "m2"),
				entry("queue", "take", "q", 2, "ok", "id", "m1", "deliveries", 1L),
				entry("queue", "take", "q", 3, "ok", "id", "m1", "deliveries", 1L));
		assertThat(QueueDeliveries.check(history, EU)).hasSize(2)
			.anyMatch((violation) -> violation.contains("taken 2 times"))
			.anyMatch((violation) -> violation.contains("never taken"));
	}

	@Test
	void aStepClaimedTwiceIsCaught() {
		List<Entry> history = List.of(entry("step", "claim", "o/reserve", 0, "ok", "claim", "CLAIMED"),
				entry("step", "complete", "o/reserve", 1, "ok"),
				entry("step", "claim", "o/charge", 2, "ok", "claim", "CLAIMED"),
				entry("step", "claim", "o/charge", 3, "ok", "claim", "CLAIMED"));
		assertThat(StepClaims.check(history, EU)).singleElement().asString().contains("claimed 2 times");
	}

	@Test
	void morePermitsThanTheLimitAreCaught() {
		List<Entry> history = new ArrayList<>();
		history.add(entry("concurrency", "acquire", "c", 0, "refused"));
		for (int i = 0; i <= ConcurrencyHolds.LIMIT; i++) {
			history.add(entry("concurrency", "hold", "c", i, "ok", "end", 100L));
		}
		assertThat(ConcurrencyHolds.check(history, EU)).singleElement().asString().contains("permits held at once");
	}

	@Test
	void aRegionThatMissedAnotherVersionsChangesIsCaught() {
		List<Entry> history = List.of(entry("region", "allot", "b", 0, "ok", "created", true),
				entry("region", "increment", "c", 1, "ok", "amount", 4L, "region", "us"),
				entry("region", "final-counter", "c", 2, "ok", "value", 4L),
				entry("region", "final-counter", "c", 2, "ok", "value", 0L, "region", "us"),
				entry("region", "final-budget", "b", 2, "ok", "value", 2 * RegionLoad.SHARE),
				entry("region", "final-budget", "b", 2, "ok", "value", 2 * RegionLoad.SHARE, "region", "us"));
		assertThat(RegionalTotals.check(history, List.of("eu", "us"))).singleElement()
			.asString()
			.contains("us: final-counter is 0, not 4");
	}

	@Test
	void aLayoutChangeThatReadsNothingOfThePreviousOneIsCaught() throws IOException {
		// recorded from MixedVersionTests run with
		// -Dupgrade.current.properties=redkit.key-prefix=elsewhere: this build's
		// instances on keys of their own, as a layout change that reads nothing of the
		// previous layout would be (docs/testing.md has the command and what every
		// checker found); kept: the sliding-window limit's decisions and the lock's holds
		// (and the instances' lines)
		List<Entry> history;
		try (InputStream recording = CheckersTests.class.getResourceAsStream(LAYOUT_BREAK)) {
			assertThat(recording).as(LAYOUT_BREAK).isNotNull();
			history = Entry.read(recording);
		}
		assertThat(RateLimitBound.check(history, EU)).isNotEmpty()
			.allMatch((violation) -> violation.startsWith("sw in eu: ") && violation.contains("(bound 20)"))
			.anyMatch((violation) -> violation.contains("0.1.0@0.1.0") && violation.contains("@current"));
		assertThat(LockHolds.check(history, EU)).anyMatch((violation) -> violation.contains("two holders at once"));
	}

	private static Entry entry(String capability, String op, String key, long start, String outcome, Object... more) {
		Map<String, Object> fields = new LinkedHashMap<>(Map.of("instance", "a1", "version", "current", "region", "eu",
				"cap", capability, "op", op, "key", key, "start", start, "end", start + 1, "outcome", outcome));
		for (int i = 0; i < more.length; i += 2) {
			fields.put((String) more[i], more[i + 1]);
		}
		return new Entry(fields);
	}

}
