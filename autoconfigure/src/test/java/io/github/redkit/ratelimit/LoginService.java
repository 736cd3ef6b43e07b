package io.github.redkit.ratelimit;

import reactor.core.publisher.Mono;

/**
 * A bean whose methods are rate limited with {@code @RateLimited}: a named limit per
 * argument ({@code login}, blocking and a {@code Mono}), an inline one over two keys with
 * a cost, an inline sliding log; shared by the annotation's suites and the decision walk.
 */
class LoginService {

	private int calls;

	@RateLimited(value = "login", key = "'user:' + #user")
	void login(String user) {
		if (user == null) {
			throw new IllegalStateException("never reached: the key is evaluated first");
		}
		this.calls++;
	}

	@RateLimited(value = "login", key = "'user:' + #user")
	Mono<Void> search(String user) {
		return Mono.empty();
	}

	int calls() {
		return this.calls;
	}

	@RateLimited(limit = 4, period = "1h", cost = 3, key = { "'user:' + #user", "'ip:' + #ip" })
	void export(String user, String ip) {
	}

	@RateLimited(limit = 2, period = "15m", algorithm = RateLimitAlgorithm.SLIDING_LOG, key = "#email")
	void resetPassword(String email) {
	}

}
