package io.github.redkit.lock;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

import io.github.redkit.idempotency.IdempotentStep;
import io.github.redkit.testsupport.Exercises;
import io.github.redkit.testsupport.NonBlockingThreads;
import io.github.redkit.testsupport.RedisTopologies;
import io.github.redkit.testsupport.RedisTopology;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.AfterParameterizedClassInvocation;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient.ResponseSpec;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * A WebFlux application on a real Netty server answers a lock held by another request and
 * a step still in progress as the Spring MVC one does: 409 with a problem detail, while
 * the first request, holding the lock or the step until its publisher completes, then
 * succeeds. BlockHound watches the event loops throughout.
 */
@Tag("tests-apart")
@ParameterizedClass
@RedisTopologies(exercises = Exercises.CONNECTION)
class ReactiveWebFluxConflictTests {

	@Parameter
	RedisTopology topology;

	// one application per topology: each test locks and claims keys of its own
	private static @Nullable ConfigurableApplicationContext shared;

	@BeforeAll
	static void watchForBlocking() {
		NonBlockingThreads.watch();
	}

	@BeforeParameterizedClassInvocation
	static void startTheApplication(RedisTopology topology) {
		shared = new SpringApplicationBuilder(WebFluxApplication.class).web(WebApplicationType.REACTIVE)
			// closing the application disposes Reactor Netty's global loops: without the
			// quiet period of 2 s that its close would wait out
			.properties("server.port=0", "spring.reactor.netty.shutdown-quiet-period=0s",
					"redkit.key-prefix=rconflict-" + UUID.randomUUID())
			.properties(topology.springProperties())
			.run();
	}

	@AfterParameterizedClassInvocation
	static void stopTheApplication() {
		if (shared != null) {
			shared.close();
			shared = null;
		}
	}

	@Test
	void aLockHeldByAnotherRequestIs409UntilItsPublisherCompletes() {
		ConfigurableApplicationContext context = Objects.requireNonNull(shared);
		WebTestClient client = client(context);
		SettlementController controller = context.getBean(SettlementController.class);
		String day = UUID.randomUUID().toString();
		// the first answer comes when the work is finished: asked for on another
		// thread
		CompletableFuture<String> first = CompletableFuture.supplyAsync(() -> client.get()
			.uri("/settle?day=" + day)
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(String.class)
			.returnResult()
			.getResponseBody());
		await().atMost(Duration.ofSeconds(10)).until(() -> controller.running(day));
		conflict(client.get().uri("/settle?day=" + day).exchange(), "Lock not acquired");
		controller.finish(day);
		assertThat(first).succeedsWithin(Duration.ofSeconds(30)).isEqualTo("settled " + day);
		client.get().uri("/settle?day=" + day + "&quick=true").exchange().expectStatus().isOk();
	}

	@Test
	void aStepStillInProgressIs409AndIsReplayedOnceDone() {
		ConfigurableApplicationContext context = Objects.requireNonNull(shared);
		WebTestClient client = client(context);
		SettlementController controller = context.getBean(SettlementController.class);
		String order = UUID.randomUUID().toString();
		CompletableFuture<String> first = CompletableFuture.supplyAsync(() -> client.get()
			.uri("/charge?order=" + order)
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(String.class)
			.returnResult()
			.getResponseBody());
		await().atMost(Duration.ofSeconds(10)).until(() -> controller.running(order));
		conflict(client.get().uri("/charge?order=" + order).exchange(), "Step in progress");
		controller.finish(order);
		assertThat(first).succeedsWithin(Duration.ofSeconds(30)).isEqualTo("charged " + order);
		client.get()
			.uri("/charge?order=" + order)
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(String.class)
			.isEqualTo("charged " + order);
	}

	private static void conflict(ResponseSpec response, String title) {
		response.expectStatus()
			.isEqualTo(409)
			.expectHeader()
			.contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON)
			.expectBody()
			.jsonPath("$.status")
			.isEqualTo(409)
			.jsonPath("$.title")
			.isEqualTo(title);
	}

	private static WebTestClient client(ConfigurableApplicationContext context) {
		String port = context.getEnvironment().getProperty("local.server.port");
		return WebTestClient.bindToServer()
			.baseUrl("http://127.0.0.1:" + port)
			.responseTimeout(Duration.ofSeconds(30))
			.build();
	}

	@SpringBootApplication(scanBasePackages = "io.github.redkit.lock.none")
	@Import(SettlementController.class)
	static class WebFluxApplication {

	}

	@RestController
	static class SettlementController {

		private final Map<String, Sinks.One<String>> running = new ConcurrentHashMap<>();

		@GetMapping("/settle")
		@DistributedLock(key = "#day", waitTime = "0s")
		Mono<String> settle(@RequestParam String day, @RequestParam(defaultValue = "false") boolean quick) {
			return quick ? Mono.just("quick " + day) : work(day).map((done) -> "settled " + day);
		}

		@GetMapping("/charge")
		@IdempotentStep(operation = "#order", step = "charge")
		Mono<String> charge(@RequestParam String order) {
			return work(order).map((done) -> "charged " + order);
		}

		private Mono<String> work(String id) {
			return Mono.defer(() -> this.running.computeIfAbsent(id, (key) -> Sinks.one()).asMono());
		}

		boolean running(String id) {
			return this.running.containsKey(id);
		}

		void finish(String id) {
			this.running.get(id).tryEmitValue("done");
		}

	}

}
