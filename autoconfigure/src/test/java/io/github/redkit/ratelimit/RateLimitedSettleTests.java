package io.github.redkit.ratelimit;

import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@code @RateLimited(settle = ...)} charges what a call really used, and
 * {@code @RateLimited(countWhen = ...)} counts only the calls that matter, on blocking
 * methods: the permits are taken before the call and settled when it ends.
 */
class RateLimitedSettleTests {

	private final ApplicationContextRunner runner = RateLimitedApplications.runner("settle-" + UUID.randomUUID())
		.withPropertyValues("redkit.rate-limit.limits.tokens.windows[0].limit=1000",
				"redkit.rate-limit.limits.tokens.windows[0].period=1h",
				"redkit.rate-limit.limits.login-failures.windows[0].limit=3",
				"redkit.rate-limit.limits.login-failures.windows[0].period=1h")
		.withUserConfiguration(Services.class);

	@Test
	void aCallIsChargedTheTokensItReallyUsed() {
		this.runner.run((context) -> {
			ChatService chat = context.getBean(ChatService.class);
			RateLimiter limiter = context.getBean(RateLimiter.class);
			chat.complete("acme", 30);
			chat.complete("acme", 250);
			assertThat(limiter.tryAcquire("tokens", List.of("acme"), 1).remaining())
				.as("100 taken up front each time, settled at 30 and 250")
				.isEqualTo(1000 - 280 - 1);
			assertThat(chat.complete("acme", 100).tokens()).isEqualTo(100);
			assertThat(limiter.tryAcquire("tokens", List.of("acme"), 1).remaining())
				.isEqualTo(1000 - 280 - 1 - 100 - 1);
		});
	}

	@Test
	void aCallThatThrowsKeepsItsEstimate() {
		this.runner.run((context) -> {
			ChatService chat = context.getBean(ChatService.class);
			RateLimiter limiter = context.getBean(RateLimiter.class);
			assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> chat.complete("globex", -1));
			assertThat(limiter.tryAcquire("tokens", List.of("globex"), 1).remaining()).isEqualTo(1000 - 100 - 1);
		});
	}

	@Test
	void onlyFailedLogInsCountAndTheLimitStillRefusesBeforeTheCall() {
		this.runner.run((context) -> {
			LoginService login = context.getBean(LoginService.class);
			for (int i = 0; i < 10; i++) {
				assertThat(login.login("alice", "right")).isEqualTo("welcome");
			}
			for (int i = 0; i < 3; i++) {
				assertThatExceptionOfType(BadCredentials.class).isThrownBy(() -> login.login("alice", "wrong"));
			}
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> login.login("alice", "right"))
				.satisfies((ex) -> assertThat(ex.getLimitName()).isEqualTo("login-failures"));
			assertThat(login.attempts()).as("a refused log-in never reaches the method").isEqualTo(13);
		});
	}

	@Test
	void anInvalidExpressionFailsTheStartUpNamingTheMethod() {
		this.runner.withUserConfiguration(BrokenConfiguration.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("BrokenService.call()")
				.hasMessageContaining("settle");
		});
	}

	record Completion(int tokens) {
	}

	static class BadCredentials extends RuntimeException {

		BadCredentials() {
			super("bad credentials");
		}

	}

	static class Services {

		@Bean
		ChatService chatService() {
			return new ChatService();
		}

		@Bean
		LoginService loginService() {
			return new LoginService();
		}

	}

	static class BrokenConfiguration {

		@Bean
		BrokenService brokenService() {
			return new BrokenService();
		}

	}

	static class ChatService {

		@RateLimited(value = "tokens", key = "#tenant", cost = 100, settle = "#result.tokens")
		Completion complete(String tenant, int tokens) {
			if (tokens < 0) {
				throw new IllegalStateException("the model failed");
			}
			return new Completion(tokens);
		}

	}

	static class LoginService {

		private final AtomicInteger attempts = new AtomicInteger();

		int attempts() {
			return this.attempts.get();
		}

		@RateLimited(value = "login-failures", key = "#user", countWhen = "#exception != null")
		String login(String user, String password) {
			this.attempts.incrementAndGet();
			if (!password.equals("right")) {
				throw new BadCredentials();
			}
			return "welcome";
		}

	}

	static class BrokenService {

		@RateLimited(value = "tokens", settle = "#result.(")
		String call() {
			return "";
		}

	}

}
