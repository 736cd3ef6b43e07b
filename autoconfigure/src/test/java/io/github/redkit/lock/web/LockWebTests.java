package io.github.redkit.lock.web;

import java.time.Duration;
import java.util.UUID;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.autoconfigure.lock.LockAutoConfiguration;
import io.github.redkit.lock.DistributedLock;
import io.github.redkit.lock.DistributedLocks;
import io.github.redkit.lock.LockHandle;
import io.github.redkit.testsupport.RedisServers;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/**
 * A {@code @DistributedLock} controller method in Spring MVC: 409 problem detail when the
 * lock is held elsewhere. The context is a servlet one with only the auto-configurations
 * the lock needs (a full {@code @SpringBootTest} costs a minute on the shared machines).
 */
class LockWebTests {

	private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedkitAutoConfiguration.class,
				LockAutoConfiguration.class, AopAutoConfiguration.class))
		.withPropertyValues(RedisServers.standalone().springProperties())
		.withPropertyValues("redkit.key-prefix=redkit-test")
		.withBean(Orders.class);

	@Test
	void aLockedResourceAnswers409WithAProblemDetail() {
		this.runner.run((context) -> {
			MockMvc mvc = MockMvcBuilders.standaloneSetup(context.getBean(Orders.class))
				.setControllerAdvice(context.getBean(LockExceptionHandler.class))
				.build();
			String id = UUID.randomUUID().toString();
			mvc.perform(get("/orders/" + id + "/ship")).andExpect(status().isOk());
			try (LockHandle held = context.getBean(DistributedLocks.class)
				.tryLock("order:" + id, Duration.ZERO, Duration.ofSeconds(10))
				.orElseThrow()) {
				mvc.perform(get("/orders/" + id + "/ship"))
					.andExpect(status().isConflict())
					.andExpect(content().contentTypeCompatibleWith("application/problem+json"))
					.andExpect(jsonPath("$.title").value("Lock not acquired"))
					.andExpect(jsonPath("$.lock").value("'order:' + #id"))
					.andExpect(jsonPath("$.status").value(409));
			}
		});
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
