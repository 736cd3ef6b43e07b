package io.github.redkit.test.boot;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.function.Supplier;

import io.github.redkit.testsupport.RedisServer;
import io.github.redkit.testsupport.RespClient;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.util.Assert;

/**
 * The Redis of a {@link RedkitTest @RedkitTest} application, as a bean to inject into the
 * test: it removes Redkit's keys, and makes Redis hang for a block of code so that a test
 * can see the application's fail-open and fail-closed paths.
 * <p>
 * The server is shared by every test of the JVM: the faults suit tests that run one at a
 * time (JUnit's default), and each ends with Redis answering again. A command the
 * application sent while Redis hung still runs when it answers again, as it would after a
 * real stall. Redkit's rate limiter keeps applying its failure mode for
 * {@code redkit.rate-limit.failure-cooldown} after a failure: set it to {@code 0} in
 * tests that check the way back.
 */
public final class RedkitTestRedis implements DisposableBean {

	private static final Set<RedkitTestRedis> live = new CopyOnWriteArraySet<>();

	private final RedisServer server;

	private final ConfigurableApplicationContext context;

	RedkitTestRedis(RedisServer server, ConfigurableApplicationContext context) {
		this.server = server;
		this.context = context;
		live.add(this);
	}

	/**
	 * The test server, for what the application's own client should not do (raw commands,
	 * {@code CommandLog}, {@code CommandStats}).
	 * @return the running server
	 */
	public RedisServer server() {
		return this.server;
	}

	/**
	 * The application's {@code redkit.key-prefix}.
	 * @return the prefix every Redkit key starts with
	 */
	public String keyPrefix() {
		return this.context.getEnvironment().getProperty("redkit.key-prefix", "redkit");
	}

	/**
	 * Removes every key under {@code redkit.key-prefix} on every master, with
	 * {@code SCAN MATCH} and {@code UNLINK}; other keys are kept.
	 * @return how many keys were removed
	 */
	public long reset() {
		return RedisKeys.unlinkMatching(connectionFactory(), RedisKeys.globLiteral(keyPrefix() + ":") + "*");
	}

	/**
	 * Runs an action while Redis answers nothing for {@code pause}
	 * ({@code CLIENT PAUSE ... ALL} on every node: connections stay open, commands wait),
	 * and returns once Redis answers again. The pause ends by itself, even if the test
	 * dies; the call returns after the action and the pause both ended.
	 * @param pause how long Redis answers nothing, from the start of the action
	 * @param action the action
	 */
	public void paused(Duration pause, Runnable action) {
		paused(pause, () -> {
			action.run();
			return null;
		});
	}

	/**
	 * Runs an action while Redis answers nothing for {@code pause}, and returns its
	 * result once Redis answers again.
	 * @param <T> the result type
	 * @param pause how long Redis answers nothing, from the start of the action
	 * @param action the action
	 * @return what the action returned
	 * @see #paused(Duration, Runnable)
	 */
	public <T extends @Nullable Object> T paused(Duration pause, Supplier<T> action) {
		Assert.isTrue(pause.toMillis() > 0, "The pause must be at least 1 ms");
		this.server.callOnEveryNode("CLIENT", "PAUSE", Long.toString(pause.toMillis()), "ALL");
		try {
			return action.get();
		}
		finally {
			awaitAnswers(pause.plusSeconds(10));
		}
	}

	/**
	 * Runs an action while Redis is frozen (the server's processes stopped, or its
	 * container paused): connections stay open and nothing is answered until the action
	 * ends, however long it takes. Keep the action shorter than the application's
	 * timeouts allow for (a cluster's nodes may also need a moment to agree again).
	 * @param action the action
	 */
	public void unreachable(Runnable action) {
		unreachable(() -> {
			action.run();
			return null;
		});
	}

	/**
	 * Runs an action while Redis is frozen and returns its result.
	 * @param <T> the result type
	 * @param action the action
	 * @return what the action returned
	 * @see #unreachable(Runnable)
	 */
	public <T extends @Nullable Object> T unreachable(Supplier<T> action) {
		this.server.pause();
		try {
			return action.get();
		}
		finally {
			this.server.resume();
			awaitAnswers(Duration.ofSeconds(10));
		}
	}

	private void awaitAnswers(Duration timeout) {
		// a PING waits out the pause on the server's side: no polling, no sleeping
		for (int port : this.server.ports()) {
			try (RespClient client = RespClient.connect(RedisServer.HOST, port, timeout)) {
				client.call("PING");
			}
		}
	}

	RedisConnectionFactory connectionFactory() {
		return this.context.getBean(RedisConnectionFactory.class);
	}

	/**
	 * The test Redis of the live {@code @RedkitTest} context that holds a bean.
	 * @param <T> the bean type
	 * @param type the type the bean is registered as
	 * @param bean the bean
	 * @return the test Redis of its context
	 * @throws AssertionError when no such context holds it
	 */
	static <T> RedkitTestRedis of(Class<T> type, T bean) {
		for (RedkitTestRedis redis : live) {
			if (redis.context.isActive()
					&& redis.context.getBeanProvider(type).stream().anyMatch((candidate) -> candidate == bean)) {
				return redis;
			}
		}
		throw new AssertionError("This " + type.getSimpleName() + " (" + bean
				+ ") is not a bean of a running @RedkitTest application context");
	}

	@Override
	public void destroy() {
		live.remove(this);
	}

}
