package io.github.redkit.test.boot;

import io.github.redkit.ratelimit.RateLimited;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/**
 * A small application under test: a rate-limited greeting per user.
 */
@SpringBootApplication(proxyBeanMethods = false)
class GreetingApplication {

	@Bean
	Greeter greeter() {
		return new Greeter();
	}

	static class Greeter {

		@RateLimited(value = "greetings", key = "#user")
		String greet(String user) {
			return "Hello " + user;
		}

	}

}
