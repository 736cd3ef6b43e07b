package io.github.redkit.ratelimit.web;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import com.sun.management.ThreadMXBean;
import io.github.redkit.core.web.QuotaHeaders;
import io.github.redkit.ratelimit.RateLimitAlgorithm;
import io.github.redkit.ratelimit.RateLimitDecision;
import io.github.redkit.ratelimit.RateLimitFields;
import io.github.redkit.ratelimit.RateLimitPolicy;
import io.github.redkit.ratelimit.RateLimitWindow;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code RateLimit-Policy} and {@code RateLimit} fields as strings: the items a
 * limit's policy is formatted into once are the ones every request gets, a policy
 * redefined under the same name gets its own, and partition keys are the first 9 bytes of
 * the SHA-256 of the identifiers on every thread.
 */
class RateLimitHeadersTests {

	private static final RateLimitWindow SECOND = RateLimitWindow.of(10, Duration.ofSeconds(1));

	private static final RateLimitWindow MINUTE = RateLimitWindow.of(120, Duration.ofMinutes(1));

	@Test
	void thePolicyFieldListsEveryWindowWithThePartitionKey() {
		RateLimitPolicy policy = RateLimitPolicy.slidingWindow(SECOND, MINUTE);
		String pk = QuotaHeaders.partitionKey(List.of("alice"));
		assertThat(RateLimitHeaders.policy("api", policy, pk))
			.isEqualTo("\"api-1s\";q=10;w=1;pk=" + pk + ", \"api-1m\";q=120;w=60;pk=" + pk);
		// the same limit again, and without keys
		assertThat(RateLimitHeaders.policy("api", policy, pk))
			.isEqualTo("\"api-1s\";q=10;w=1;pk=" + pk + ", \"api-1m\";q=120;w=60;pk=" + pk);
		assertThat(RateLimitHeaders.policy("api", policy)).isEqualTo("\"api-1s\";q=10;w=1, \"api-1m\";q=120;w=60");
	}

	@Test
	void aPolicyRedefinedUnderTheSameNameIsFormattedAgain() {
		RateLimitPolicy before = RateLimitPolicy.slidingWindow(SECOND);
		assertThat(RateLimitHeaders.policy("redefined", before)).isEqualTo("\"redefined-1s\";q=10;w=1");
		RateLimitPolicy after = RateLimitPolicy.slidingWindow(RateLimitWindow.of(5, Duration.ofMillis(1500)));
		assertThat(RateLimitHeaders.policy("redefined", after)).isEqualTo("\"redefined-1500ms\";q=5;w=2");
		// an equal policy, not the same instance, reads the same
		assertThat(RateLimitHeaders.policy("redefined", RateLimitPolicy.slidingWindow(SECOND)))
			.isEqualTo("\"redefined-1s\";q=10;w=1");
	}

	@Test
	void twoPoliciesUnderOneShortNameAreEachFormattedOnce() {
		// overloads of one method share a short name and keep their own inline limits:
		// their requests alternate, and neither's items may be formatted per request
		RateLimitPolicy one = RateLimitPolicy.slidingWindow(SECOND);
		RateLimitPolicy other = RateLimitPolicy.slidingWindow(MINUTE);
		String first = RateLimitHeaders.policy("Overloaded.get", one);
		assertThat(RateLimitHeaders.policy("Overloaded.get", other)).isEqualTo("\"Overloaded.get-1m\";q=120;w=60");
		assertThat(RateLimitHeaders.policy("Overloaded.get", one)).isSameAs(first);
	}

	@Test
	void anEqualPolicyOfAnotherInstanceIsComparedOnceThenFoundByIdentity() {
		// a second application context in the JVM (a test suite's, a restart's) holds
		// its own instance of the same policy: its requests must not compare it, nor
		// its windows, with the instance formatted first, every time
		RateLimitPolicy first = RateLimitPolicy.slidingWindow(SECOND, MINUTE);
		RateLimitPolicy second = RateLimitPolicy.slidingWindow(RateLimitWindow.of(10, Duration.ofSeconds(1)),
				RateLimitWindow.of(120, Duration.ofMinutes(1)));
		assertThat(second).isEqualTo(first).isNotSameAs(first);
		String field = RateLimitHeaders.policy("twice", first);
		assertThat(RateLimitHeaders.policy("twice", second)).isSameAs(field);
		assertThat(RateLimitPolicyItems.of("twice", second).policy()).isSameAs(second);
		assertThat(RateLimitPolicyItems.of("twice", first).policy()).isSameAs(first);
	}

	@Test
	void theStateFieldNamesTheDecisionsWindowQuoted() {
		RateLimitPolicy policy = new RateLimitPolicy(RateLimitAlgorithm.SLIDING_WINDOW, List.of(SECOND, MINUTE));
		String pk = QuotaHeaders.partitionKey(List.of("a", "b"));
		RateLimitDecision decision = new RateLimitDecision(true, 7, Duration.ZERO, Duration.ofMillis(1200), MINUTE,
				policy);
		assertThat(RateLimitHeaders.state("we\"ird\u00e9", decision, pk))
			.isEqualTo("\"we\\\"ird_-1m\";r=7;t=2;pk=" + pk);
		// a window the policy does not hold, and a decision that names no policy
		RateLimitWindow other = RateLimitWindow.of(3, Duration.ofHours(2));
		assertThat(RateLimitHeaders.state("api",
				new RateLimitDecision(true, 1, Duration.ZERO, Duration.ZERO, other, policy)))
			.isEqualTo("\"api-2h\";r=1");
		assertThat(RateLimitHeaders.state("api", new RateLimitDecision(true, 0, Duration.ZERO, Duration.ZERO, SECOND)))
			.isEqualTo("\"api-1s\";r=0");
		assertThat(RateLimitHeaders.state("api", RateLimitDecision.failedOpen(policy))).isNull();
	}

	@Test
	void integersAboveFifteenDigitsPrintAsTheLargestAStructuredFieldHolds() {
		// RFC 9651 integers have at most 15 digits: a parser refuses a 16th
		long huge = 10_000_000_000_000_000L;
		RateLimitWindow window = RateLimitWindow.of(huge, Duration.ofSeconds(huge / 10));
		RateLimitPolicy policy = RateLimitPolicy.slidingWindow(window);
		long largest = 999_999_999_999_999L;
		assertThat(RateLimitFields.policies(RateLimitHeaders.policy("huge", policy)))
			.containsExactly(new RateLimitFields.Policy("huge-" + huge / 10 + "s", largest, null, largest, null));
		RateLimitDecision decision = new RateLimitDecision(true, huge - 1, Duration.ZERO, Duration.ofSeconds(huge / 10),
				window, policy);
		assertThat(RateLimitFields.serviceLimits(RateLimitHeaders.state("huge", decision)))
			.containsExactly(new RateLimitFields.ServiceLimit("huge-" + huge / 10 + "s", largest, largest, null));
	}

	@Test
	void periodsThatPrintTheSameGetNamesOfTheirOwn() {
		RateLimitWindow whole = RateLimitWindow.of(10, Duration.ofMillis(1500));
		RateLimitWindow fraction = RateLimitWindow.of(20, Duration.ofNanos(1_500_400_000));
		RateLimitPolicy policy = RateLimitPolicy.slidingWindow(whole, fraction);
		List<String> names = RateLimitFields.policies(RateLimitHeaders.policy("same", policy))
			.stream()
			.map(RateLimitFields.Policy::name)
			.toList();
		assertThat(names).containsExactly("same-1500ms", "same-1500ms-2");
		for (int i = 0; i < 2; i++) {
			RateLimitWindow window = policy.windows().get(i);
			RateLimitDecision refused = new RateLimitDecision(false, 0, Duration.ofSeconds(1), Duration.ofSeconds(1),
					window, policy, List.of(window));
			assertThat(RateLimitFields.serviceLimits(RateLimitHeaders.state("same", refused)))
				.extracting(RateLimitFields.ServiceLimit::name)
				.containsExactly(names.get(i));
			assertThat(RateLimitHeaders.violatedPolicies("same", refused)).containsExactly(names.get(i));
		}
	}

	@Test
	void thePartitionKeyIsTheDigestOfTheIdentifiersOnEveryThread() throws Exception {
		ExecutorService threads = Executors.newFixedThreadPool(4);
		try {
			List<Future<?>> checks = new ArrayList<>();
			for (int t = 0; t < 4; t++) {
				int thread = t;
				checks.add(threads.submit(() -> {
					for (int i = 0; i < 500; i++) {
						List<String> keys = (i % 2 == 0) ? List.of("user-" + i + "-" + thread)
								: List.of("tenant-" + thread, "user-\u00e9" + i);
						assertThat(QuotaHeaders.partitionKey(keys)).isEqualTo(expectedPartitionKey(keys));
					}
				}));
			}
			for (Future<?> check : checks) {
				check.get();
			}
		}
		finally {
			threads.shutdownNow();
		}
		assertThat(QuotaHeaders.partitionKey(List.of())).isNull();
	}

	@Test
	void virtualThreadsComputePartitionKeysWithDigestsTheyShare() throws Exception {
		Assumptions.assumeTrue(Runtime.version().feature() >= 21,
				"virtual threads need Java 21+; this run is on Java " + Runtime.version().feature());
		ExecutorService threads = (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor")
			.invoke(null);
		try {
			List<Future<?>> checks = new ArrayList<>();
			for (int t = 0; t < 2000; t++) {
				List<String> keys = List.of("tenant-" + (t % 7), "user-" + t);
				checks.add(threads
					.submit(() -> assertThat(QuotaHeaders.partitionKey(keys)).isEqualTo(expectedPartitionKey(keys))));
			}
			for (Future<?> check : checks) {
				check.get();
			}
		}
		finally {
			threads.shutdownNow();
		}
	}

	@Test
	void aThreadsFirstPartitionKeyMakesNoDigestOfItsOwn() throws Exception {
		// a thread per call (a virtual thread, a container's new request thread) finds a
		// digest ready: it neither makes one nor keeps one
		ThreadMXBean allocation = (ThreadMXBean) ManagementFactory.getThreadMXBean();
		List<Long> allocated = new ArrayList<>();
		for (int t = 0; t < 300; t++) {
			List<String> keys = List.of("user-" + t);
			long[] bytes = new long[1];
			Thread thread = new Thread(() -> {
				long before = allocation.getCurrentThreadAllocatedBytes();
				QuotaHeaders.partitionKey(keys);
				bytes[0] = allocation.getCurrentThreadAllocatedBytes() - before;
			});
			thread.start();
			thread.join();
			allocated.add(bytes[0]);
		}
		// the last threads, once the shared digests were made
		assertThat(allocated.subList(200, 300)).allSatisfy((bytes) -> assertThat(bytes).isLessThan(512));
	}

	private static String expectedPartitionKey(List<String> keys) {
		try {
			MessageDigest digest = MessageDigest.getInstance("SHA-256");
			for (String key : keys) {
				digest.update((key + "\n").getBytes(StandardCharsets.UTF_8));
			}
			return ":" + Base64.getEncoder().encodeToString(Arrays.copyOf(digest.digest(), 9)) + ":";
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

}
