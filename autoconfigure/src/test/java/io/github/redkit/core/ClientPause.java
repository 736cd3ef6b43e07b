package io.github.redkit.core;

import java.time.Duration;

import io.github.redkit.testsupport.RedisServer;

/**
 * Holds every command of every client of a server (every node of a cluster) for a while
 * ({@code CLIENT PAUSE <ms> ALL}): what is sent meanwhile runs when the pause ends. It
 * opens a window in which a caller gives up on a command that Redis still runs.
 */
public final class ClientPause {

	private final RedisServer redis;

	private ClientPause(RedisServer redis) {
		this.redis = redis;
	}

	/**
	 * Pauses the clients of a server, on every node of a cluster (the node of a queue's
	 * slot is any of them); the pause ends by itself.
	 * @param redis the server (not a shared one)
	 * @param duration how long
	 * @return the pause
	 */
	public static ClientPause start(RedisServer redis, Duration duration) {
		redis.callOnEveryNode("CLIENT", "PAUSE", Long.toString(duration.toMillis()), "ALL");
		return new ClientPause(redis);
	}

	/**
	 * Waits until the server answers again: a command sent now is answered once the
	 * commands held before it have run.
	 */
	public void awaitEnd() {
		this.redis.callOnEveryNode("PING");
	}

}
