package io.github.redkit.core.web;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.autoconfigure.lock.LockAutoConfiguration;
import io.github.redkit.lock.DistributedLock;
import io.github.redkit.testsupport.RedisServers;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.bind.annotation.RestControllerAdvice;

import static org.hamcrest.Matchers.containsString;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/**
 * A request that cannot give a Redkit annotation its key is a 400 problem detail in
 * Spring MVC, with the controller advice beans the auto-configuration registers.
 */
class KeyExpressionMvcTests {

	private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedkitAutoConfiguration.class,
				LockAutoConfiguration.class, AopAutoConfiguration.class))
		.withPropertyValues(RedisServers.standalone().springProperties())
		.withPropertyValues("redkit.key-prefix=redkit-test")
		.withBean(Orders.class);

	@Test
	void aKeyThatEvaluatesToNullIs400WithAProblemDetailThatSaysWhy() {
		this.runner.run((context) -> {
			MockMvc mvc = MockMvcBuilders.standaloneSetup(context.getBean(Orders.class))
				.setControllerAdvice(context.getBeansWithAnnotation(RestControllerAdvice.class).values().toArray())
				.build();
			mvc.perform(get("/ship").param("id", "1")).andExpect(status().isOk());
			mvc.perform(get("/ship"))
				.andExpect(status().isBadRequest())
				.andExpect(content().contentTypeCompatibleWith("application/problem+json"))
				.andExpect(jsonPath("$.title").value("Invalid request key"))
				.andExpect(jsonPath("$.detail").value(containsString("'id' is null")))
				.andExpect(jsonPath("$.status").value(400));
		});
	}

	@RestController
	static class Orders {

		@GetMapping("/ship")
		@DistributedLock(key = "'order:' + #id")
		public String ship(@RequestParam(required = false) @Nullable String id) {
			return "shipped";
		}

	}

}
