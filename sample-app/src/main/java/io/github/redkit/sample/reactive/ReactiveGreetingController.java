package io.github.redkit.sample.reactive;

import java.util.Map;

import io.github.redkit.ratelimit.RateLimited;
import io.github.redkit.sample.web.Validation;
import reactor.core.publisher.Mono;

import org.springframework.context.annotation.Profile;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The reactive profile's endpoints: a {@code @RateLimited} {@code Mono} (429 with
 * {@code Retry-After}, {@code RateLimit} and {@code RateLimit-Policy} as on Spring MVC,
 * and the two fields on allowed calls) and a route limited by configuration only
 * ({@code redkit.rate-limit.web.routes} in {@code application-reactive.yml}).
 */
@RestController
@Profile("reactive")
class ReactiveGreetingController {

	@GetMapping("/api/reactive/hello")
	@RateLimited(value = "greetings", key = "'user:' + #user")
	Mono<Map<String, String>> hello(@RequestParam String user) {
		return Mono.fromSupplier(() -> Map.of("hello", Validation.id("user", user)));
	}

	@GetMapping("/api/reactive/ping")
	Mono<Map<String, String>> ping() {
		return Mono.just(Map.of("pong", "ok"));
	}

}
