package io.github.redkit.lock.web;

import java.time.Duration;
import java.util.UUID;

import io.github.redkit.autoconfigure.LockAutoConfiguration;
import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.lock.DistributedLock;
import io.github.redkit.lock.DistributedLocks;
import io.github.redkit.lock.LockHandle;
import io.github.redkit.test.RedisServers;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

@SpringBootTest(classes = LockWebTests.App.class)
@AutoConfigureMockMvc
class LockWebTests {

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		for (String property : RedisServers.standalone().springProperties()) {
			String[] pair = property.split("=", 2);
			registry.add(pair[0], () -> pair[1]);
		}
		registry.add("redkit.key-prefix", () -> "redkit-test");
	}

	@Autowired
	MockMvc mvc;

	@Autowired
	DistributedLocks locks;

	@Test
	void aLockedResourceAnswers409WithAProblemDetail() throws Exception {
		String id = UUID.randomUUID().toString();
		this.mvc.perform(get("/orders/" + id + "/ship")).andExpect(status().isOk());
		try (LockHandle held = this.locks.tryLock("order:" + id, Duration.ZERO, Duration.ofSeconds(10)).orElseThrow()) {
			this.mvc.perform(get("/orders/" + id + "/ship"))
				.andExpect(status().isConflict())
				.andExpect(content().contentTypeCompatibleWith("application/problem+json"))
				.andExpect(jsonPath("$.title").value("Lock not acquired"))
				.andExpect(jsonPath("$.lock").value("'order:' + #id"))
				.andExpect(jsonPath("$.status").value(409));
		}
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@ImportAutoConfiguration({ DataRedisAutoConfiguration.class, RedkitAutoConfiguration.class,
			LockAutoConfiguration.class })
	@Import(Orders.class)
	static class App {

	}

	@RestController
	static class Orders {

		@GetMapping("/orders/{id}/ship")
		@DistributedLock(key = "'order:' + #id")
		public String ship(@PathVariable String id) {
			return "shipped";
		}

	}

}
