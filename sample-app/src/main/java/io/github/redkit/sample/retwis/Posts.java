package io.github.redkit.sample.retwis;

import io.github.redkit.ratelimit.RateLimited;

import org.springframework.stereotype.Service;

/**
 * Posting, limited per user (limit {@code posts}) and then per client IP (limit
 * {@code posts-ip}, in {@link PostWriter}); both limits live in {@code application.yml}.
 * The user limit is checked first, so a user over their limit does not use up the permits
 * of everyone behind the same IP.
 */
@Service
public class Posts {

	private final PostWriter writer;

	public Posts(PostWriter writer) {
		this.writer = writer;
	}

	@RateLimited(value = "posts", key = "'user:' + #user.id()")
	public Post publish(User user, String ip, String text) {
		return this.writer.write(user, ip, text);
	}

}
