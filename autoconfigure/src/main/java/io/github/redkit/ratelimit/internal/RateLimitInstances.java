package io.github.redkit.ratelimit.internal;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.internal.LuaScript;
import io.github.redkit.core.internal.RandomIds;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.core.internal.RedkitThreads;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;
import org.springframework.util.Assert;

/**
 * How many instances share the rate limits, which the local failure mode divides each
 * window's limit by: the configured number, else the number of instances heard of through
 * Redis (each announces itself every heartbeat, one script call, off the decisions' path;
 * an instance missing three heartbeats is no longer counted), else {@code 1}. While Redis
 * is away the last number heard is kept.
 */
public final class RateLimitInstances implements SmartLifecycle {

	private static final Log logger = LogFactory.getLog(RateLimitInstances.class);

	private static final LuaScript<Long> HEARTBEAT = LuaScript.load("ratelimit_instances", Long.class);

	// the heartbeats an instance may miss before the others stop counting it
	private static final int MISSED_HEARTBEATS = 3;

	private final @Nullable Integer configured;

	private final @Nullable RedisScriptRunner runner;

	private final String key;

	private final Duration heartbeat;

	private final Duration timeout;

	private final String id = RandomIds.next();

	private volatile int learnt;

	private volatile @Nullable Instant heardAt;

	private volatile @Nullable ScheduledExecutorService heartbeats;

	/**
	 * A fixed number of instances: nothing is asked of Redis.
	 * @param instances the number of instances, at least 1
	 */
	public RateLimitInstances(int instances) {
		Assert.isTrue(instances >= 1, "The number of instances must be at least 1");
		this.configured = instances;
		this.runner = null;
		this.key = "";
		this.heartbeat = Duration.ZERO;
		this.timeout = Duration.ZERO;
	}

	/**
	 * The number of instances learnt through Redis, once started.
	 * @param runner runs the heartbeat script
	 * @param keyspace builds the key of the instances' sorted set
	 * @param heartbeat how often this instance announces itself
	 * @param timeout how long a heartbeat waits for Redis
	 */
	public RateLimitInstances(RedisScriptRunner runner, RedisKeyspace keyspace, Duration heartbeat, Duration timeout) {
		Assert.isTrue(heartbeat.toMillis() >= 1, "The heartbeat must be at least 1ms");
		this.configured = null;
		this.runner = runner;
		this.key = keyspace.key("ratelimit").part("instances").build();
		this.heartbeat = heartbeat;
		this.timeout = timeout;
	}

	/**
	 * The number of instances a window's limit is divided by.
	 * @return the configured number, else the last one learnt, else 1
	 */
	public int count() {
		Integer configured = this.configured;
		if (configured != null) {
			return configured;
		}
		return Math.max(1, this.learnt);
	}

	/**
	 * Where {@link #count()} comes from, as the health details show it.
	 * @return {@code configured}, {@code learnt} or {@code default}
	 */
	public String source() {
		if (this.configured != null) {
			return "configured";
		}
		return (this.learnt > 0) ? "learnt" : "default";
	}

	/**
	 * When Redis last counted the instances.
	 * @return the moment, on this instance's clock, or {@code null} when never
	 */
	public @Nullable Instant heardAt() {
		return this.heardAt;
	}

	/**
	 * Announces this instance and reads how many are live: one script call.
	 */
	void beat() {
		RedisScriptRunner runner = this.runner;
		if (runner == null) {
			return;
		}
		try {
			Long live = runner.execute(HEARTBEAT, this.timeout, List.of(this.key), this.id,
					String.valueOf(this.heartbeat.toMillis() * MISSED_HEARTBEATS));
			if (live != null && live > 0) {
				this.learnt = (int) Math.min(Integer.MAX_VALUE, live);
				this.heardAt = Instant.now();
			}
		}
		catch (RuntimeException ex) {
			// Redis away: the last number heard stands until it answers again
			logger.debug("Rate-limit instances heartbeat failed: " + ex.getMessage());
		}
	}

	@Override
	public void start() {
		if (this.runner == null || this.heartbeats != null) {
			return;
		}
		ScheduledExecutorService heartbeats = Executors
			.newSingleThreadScheduledExecutor(RedkitThreads.factory("redkit-rate-limit-instances"));
		long period = this.heartbeat.toMillis();
		heartbeats.scheduleWithFixedDelay(this::beat, 0, period, TimeUnit.MILLISECONDS);
		this.heartbeats = heartbeats;
	}

	@Override
	public void stop() {
		ScheduledExecutorService heartbeats = this.heartbeats;
		if (heartbeats != null) {
			heartbeats.shutdownNow();
			this.heartbeats = null;
		}
	}

	@Override
	public boolean isRunning() {
		return this.heartbeats != null;
	}

}
