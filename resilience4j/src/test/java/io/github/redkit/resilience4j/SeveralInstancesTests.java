package io.github.redkit.resilience4j;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.resilience4j.bulkhead.Bulkhead;
import io.github.resilience4j.bulkhead.BulkheadRegistry;
import io.github.resilience4j.bulkhead.event.BulkheadEvent;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two instances of one Boot application (two contexts on one Redis, one key prefix), with
 * Resilience4j's own annotations and aspects: the {@code @Bulkhead} calls in flight
 * across both never exceed the Redkit concurrency limit, and the {@code @RateLimiter}
 * calls of both share one Redkit limit.
 */
class SeveralInstancesTests {

	private static final int LIMIT = 2;

	private static final List<ConfigurableApplicationContext> instances = new ArrayList<>();

	private static ExecutorService callers;

	@BeforeAll
	static void startTwoInstances() {
		String keyPrefix = Resilience4jTestApplication.newKeyPrefix();
		for (int i = 0; i < 2; i++) {
			instances.add(new SpringApplicationBuilder(Resilience4jTestApplication.class).web(WebApplicationType.NONE)
				.run(Resilience4jTestApplication.arguments(keyPrefix)));
		}
		callers = Executors.newCachedThreadPool();
	}

	@AfterAll
	static void stop() {
		callers.shutdownNow();
		instances.forEach(ConfigurableApplicationContext::close);
		// the class can run again in the same JVM (repeated to hunt a rare failure)
		instances.clear();
	}

	@Test
	@Disabled("failed in a clean-clone .ci/run of 2026-11-29 (not every call decided within 20 s, no WARN); "
			+ "to trace (issue 45): the failure now names each call's state")
	void theCallsInFlightAcrossInstancesNeverExceedTheRedkitLimit() throws Exception {
		ReportService.Gate gate = Resilience4jTestApplication.GATE;
		Bulkhead bulkhead = instances.get(0).getBean(BulkheadRegistry.class).bulkhead("reports");
		assertThat(bulkhead).isInstanceOf(RedkitBulkhead.class);
		assertThat(bulkhead.getMetrics().getMaxAllowedConcurrentCalls()).isEqualTo(LIMIT);
		List<BulkheadEvent.Type> events = new CopyOnWriteArrayList<>();
		for (ConfigurableApplicationContext instance : instances) {
			instance.getBean(BulkheadRegistry.class)
				.bulkhead("reports")
				.getEventPublisher()
				.onEvent((event) -> events.add(event.getEventType()));
		}
		int callersPerInstance = 3;
		for (int round = 0; round < 3; round++) {
			gate.close();
			List<Future<String>> calls = new ArrayList<>();
			for (ConfigurableApplicationContext instance : instances) {
				ReportService reports = instance.getBean(ReportService.class);
				for (int c = 0; c < callersPerInstance; c++) {
					String id = round + "-" + c;
					calls.add(callers.submit(() -> reports.render(id)));
				}
			}
			int refused = 2 * callersPerInstance - LIMIT;
			// every call decided (inside or refused), then the counts: a failure shows
			// them instead of a wait that ran out
			try {
				await("every call decided").atMost(Duration.ofSeconds(20))
					.until(() -> gate.rejected.get() + gate.inside.get() == 2 * callersPerInstance);
			}
			catch (ConditionTimeoutException ex) {
				throw new AssertionError("round %d: %d inside, %d refused, the calls: %s".formatted(round,
						gate.inside.get(), gate.rejected.get(), states(calls)), ex);
			}
			assertThat(gate.inside.get()).as("calls inside, round %d", round).isEqualTo(LIMIT);
			assertThat(gate.rejected.get()).as("calls refused, round %d", round).isEqualTo(refused);
			gate.open();
			List<String> answers = new ArrayList<>();
			for (Future<String> call : calls) {
				answers.add(call.get(20, TimeUnit.SECONDS));
			}
			assertThat(answers).filteredOn("busy"::equals).hasSize(refused);
		}
		assertThat(gate.mostInside.get()).as("the most calls in flight at once").isEqualTo(LIMIT);
		assertThat(events).contains(BulkheadEvent.Type.CALL_PERMITTED, BulkheadEvent.Type.CALL_REJECTED,
				BulkheadEvent.Type.CALL_FINISHED);
		assertThat(bulkhead.getMetrics().getAvailableConcurrentCalls()).isBetween(0, LIMIT);
	}

	private static List<String> states(List<Future<String>> calls) {
		List<String> states = new ArrayList<>();
		for (Future<String> call : calls) {
			if (!call.isDone()) {
				states.add("running");
				continue;
			}
			try {
				states.add(call.get());
			}
			catch (Exception ex) {
				states.add(String.valueOf(ex.getCause()));
			}
		}
		return states;
	}

	@Test
	void theAnnotatedCallsOfBothInstancesShareOneRedkitLimit() {
		List<String> answers = new ArrayList<>();
		for (int i = 0; i < 8; i++) {
			answers.add(instances.get(i % 2).getBean(PartnerClient.class).quote("sku"));
		}
		assertThat(answers).filteredOn("quote for sku"::equals).hasSize(5);
		assertThat(answers.subList(5, 8)).containsOnly("no quote for sku now");
	}

}
