package io.github.redkit.idempotency.web;

import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redkit.idempotency.IdempotentStep;
import io.github.redkit.idempotency.IdempotentSteps;
import io.github.redkit.idempotency.StepOutcome;
import io.github.redkit.testsupport.RedisServers;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.context.annotation.Import;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

@SpringBootTest(classes = IdempotencyWebTests.WebApplication.class)
@AutoConfigureMockMvc
class IdempotencyWebTests {

	@Autowired
	MockMvc mvc;

	@Autowired
	IdempotentSteps steps;

	@Autowired
	Orders orders;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		for (String property : RedisServers.standalone().springProperties()) {
			String[] pair = property.split("=", 2);
			registry.add(pair[0], () -> pair[1]);
		}
	}

	@Test
	void aRetriedPostReturnsTheStoredResultAndAReusedKeyIs422() throws Exception {
		String key = UUID.randomUUID().toString();
		String body = "{\"item\":\"book\",\"quantity\":2}";
		int before = this.orders.runs();
		for (int i = 0; i < 2; i++) {
			this.mvc
				.perform(post("/orders").header("Idempotency-Key", key)
					.contentType(MediaType.APPLICATION_JSON)
					.content(body))
				.andExpect(status().isOk())
				.andExpect(jsonPath("$.number").value(before + 1));
		}
		assertThat(this.orders.runs()).isEqualTo(before + 1);
		this.mvc
			.perform(post("/orders").header("Idempotency-Key", key)
				.contentType(MediaType.APPLICATION_JSON)
				.content("{\"item\":\"book\",\"quantity\":3}"))
			.andExpect(status().isUnprocessableContent())
			.andExpect(jsonPath("$.title").value("Idempotency key reused"));
	}

	@Test
	void aStepOutOfOrderIs409WithTheRecordedSteps() throws Exception {
		String auction = UUID.randomUUID().toString();
		this.mvc.perform(post("/auctions/" + auction + "/notice"))
			.andExpect(status().isConflict())
			.andExpect(jsonPath("$.title").value("Step out of order"))
			.andExpect(jsonPath("$.expectedSteps[0]").value("bid"));
	}

	@Test
	void aStepInProgressIs409() throws Exception {
		String auction = UUID.randomUUID().toString();
		this.steps.claim(auction, "bid", Set.of(), null);
		assertThat(this.steps.claim(auction, "notice", Set.of("bid"), null)).isEqualTo(StepOutcome.IN_PROGRESS);
		this.mvc.perform(post("/auctions/" + auction + "/notice"))
			.andExpect(status().isConflict())
			.andExpect(jsonPath("$.title").value("Step in progress"));
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(Orders.class)
	static class WebApplication {

	}

	record Order(String item, int quantity) {
	}

	record Confirmation(int number, Order order) {
	}

	@RestController
	static class Orders {

		private final AtomicInteger runs = new AtomicInteger();

		int runs() {
			return this.runs.get();
		}

		@PostMapping("/orders")
		@IdempotentStep(operation = "#key", step = "create-order", fingerprint = "#order")
		public Confirmation create(@RequestHeader("Idempotency-Key") String key, @RequestBody Order order) {
			return new Confirmation(this.runs.incrementAndGet(), order);
		}

		@PostMapping("/auctions/{id}/notice")
		@IdempotentStep(operation = "#id", step = "notice", after = "bid")
		public String notice(@PathVariable String id) {
			return "charged";
		}

	}

}
