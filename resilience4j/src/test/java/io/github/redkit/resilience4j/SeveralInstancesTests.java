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
import java.util.function.Function;
import java.util.stream.Collectors;

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

	// the frames a failure message shows of each stack: where a caller waits is at the
	// top
	private static final int STACK_FRAMES = 20;

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
			assertThat(gate.inside.get()).as("calls still inside before round %d", round).isZero();
			List<Future<String>> calls = new ArrayList<>();
			for (ConfigurableApplicationContext instance : instances) {
				ReportService reports = instance.getBean(ReportService.class);
				for (int c = 0; c < callersPerInstance; c++) {
					String id = round + "-" + c;
					calls.add(callers.submit(() -> reports.render(id)));
				}
			}
			int refused = 2 * callersPerInstance - LIMIT;
			int thisRound = round;
			// every call decided: held inside, or ended (refused through the fallback,
			// or failed), counted call by call rather than by adding the two counters,
			// so that a call that failed or was counted wrongly shows in the
			// assertions below, not as a wait that runs out
			try {
				await("every call decided").atMost(Duration.ofSeconds(20))
					.until(() -> gate.inside.get() + ended(calls) >= calls.size());
			}
			catch (ConditionTimeoutException ex) {
				AssertionError undecided = new AssertionError(
						"not every call decided within 20 s; " + situation(thisRound, gate, calls, events), ex);
				failures(calls).forEach(undecided::addSuppressed);
				throw undecided;
			}
			assertThat(failures(calls)).as(() -> "calls failed; " + situation(thisRound, gate, calls, events))
				.isEmpty();
			assertThat(gate.inside.get()).as(() -> "calls inside; " + situation(thisRound, gate, calls, events))
				.isEqualTo(LIMIT);
			assertThat(gate.rejected.get()).as(() -> "calls refused; " + situation(thisRound, gate, calls, events))
				.isEqualTo(refused);
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

	private static int ended(List<Future<String>> calls) {
		return (int) calls.stream().filter(Future::isDone).count();
	}

	/**
	 * Where every caller is, then the counts and each call's state or failure: last, as a
	 * printer that keeps only the end of a long message keeps them.
	 */
	private static String situation(int round, ReportService.Gate gate, List<Future<String>> calls,
			List<BulkheadEvent.Type> events) {
		return "the callers:" + callerStacks() + "\nround " + round + ": " + gate.inside.get() + " inside, "
				+ gate.rejected.get() + " refused, " + ended(calls) + " ended; the events so far: "
				+ events.stream().collect(Collectors.groupingBy(Function.identity(), Collectors.counting()))
				+ "; the calls: " + states(calls);
	}

	// each call: running, its answer, or its failure and causes with the top of their
	// stacks
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
				Throwable failure = (ex.getCause() != null) ? ex.getCause() : ex;
				StringBuilder state = new StringBuilder().append(failure).append(top(failure.getStackTrace()));
				// an undeclared checked exception comes wrapped by the proxy: its cause
				// says what failed
				for (Throwable cause = failure.getCause(); cause != null; cause = cause.getCause()) {
					state.append("\ncaused by ").append(cause).append(top(cause.getStackTrace()));
				}
				states.add(state.toString());
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

	// where a call that is neither inside nor refused is: the top of each caller's stack
	private static String callerStacks() {
		StringBuilder stacks = new StringBuilder();
		Thread.getAllStackTraces().forEach((thread, stack) -> {
			if (thread.getName().startsWith("caller-")) {
				stacks.append("\n").append(thread.getName()).append(' ').append(thread.getState());
				stacks.append(top(stack));
			}
		});
		return stacks.toString();
	}

	private static String top(StackTraceElement[] stack) {
		StringBuilder top = new StringBuilder();
		for (int i = 0; i < Math.min(stack.length, STACK_FRAMES); i++) {
			top.append("\n\tat ").append(stack[i]);
		}
		return top.toString();
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
