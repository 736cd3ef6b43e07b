package io.github.redkit.resilience4j;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redkit.concurrency.ConcurrencyLimiter;
import io.github.redkit.concurrency.ConcurrencyPermit;
import io.github.resilience4j.bulkhead.Bulkhead;
import io.github.resilience4j.bulkhead.BulkheadRegistry;
import io.github.resilience4j.bulkhead.event.BulkheadEvent;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
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
		// the bound holds while Redis answers (otherwise failure-mode allow lets calls
		// through uncounted, as documented): Redkit's 500 ms is too short a timeout for a
		// loaded 2-core machine, where a fresh instance's first round trips took longer
		List<String> arguments = new ArrayList<>(List.of(Resilience4jTestApplication.arguments(keyPrefix)));
		arguments.add("--redkit.concurrency-limit.timeout=5s");
		arguments.add("--redkit.rate-limit.timeout=5s");
		for (int i = 0; i < 2; i++) {
			ConfigurableApplicationContext instance = new SpringApplicationBuilder(Resilience4jTestApplication.class)
				.web(WebApplicationType.NONE)
				.run(arguments.toArray(String[]::new));
			instances.add(instance);
			warm(instance);
		}
		AtomicInteger threads = new AtomicInteger();
		callers = Executors.newCachedThreadPool((call) -> new Thread(call, "caller-" + threads.incrementAndGet()));
	}

	/**
	 * Takes and gives back a permit from Redis: connected and the scripts loaded, so that
	 * a slow first call of a fresh instance is not taken for a Redis that does not
	 * answer.
	 */
	private static void warm(ConfigurableApplicationContext instance) {
		ConcurrencyLimiter limiter = instance.getBean(ConcurrencyLimiter.class);
		await().atMost(Duration.ofSeconds(30)).until(() -> {
			Optional<ConcurrencyPermit> permit = limiter.tryAcquire("reports", "warm-up");
			permit.ifPresent(ConcurrencyPermit::close);
			return permit.filter(ConcurrencyPermit::acquired).isPresent();
		});
	}

	@AfterAll
	static void stop() throws InterruptedException {
		// after a failure, the calls still inside end and give their places back before
		// their instances stop
		Resilience4jTestApplication.GATE.open();
		callers.shutdown();
		callers.awaitTermination(10, TimeUnit.SECONDS);
		callers.shutdownNow();
		instances.forEach(ConfigurableApplicationContext::close);
		// the class can run again in the same JVM (repeated to hunt a rare failure)
		instances.clear();
	}

	@Test
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
				AssertionError undecided = new AssertionError(
						"round %d: %d inside, %d refused, the calls: %s; the callers: %s".formatted(round,
								gate.inside.get(), gate.rejected.get(), states(calls), callerStacks()),
						ex);
				// a call that failed: with its stack
				failures(calls).forEach(undecided::addSuppressed);
				throw undecided;
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

	private static List<Throwable> failures(List<Future<String>> calls) {
		List<Throwable> failures = new ArrayList<>();
		for (Future<String> call : calls) {
			if (call.isDone()) {
				try {
					call.get();
				}
				catch (Exception ex) {
					failures.add((ex.getCause() != null) ? ex.getCause() : ex);
				}
			}
		}
		return failures;
	}

	// where a call that is neither inside nor refused is
	private static String callerStacks() {
		StringBuilder stacks = new StringBuilder();
		Thread.getAllStackTraces().forEach((thread, stack) -> {
			if (thread.getName().startsWith("caller-")) {
				stacks.append("\n").append(thread.getName()).append(' ').append(thread.getState());
				for (StackTraceElement frame : stack) {
					stacks.append("\n\tat ").append(frame);
				}
			}
		});
		return stacks.toString();
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
