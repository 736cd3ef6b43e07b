package io.github.redkit.autoconfigure;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Properties shared by every Redkit capability.
 */
@ConfigurationProperties("redkit")
public class RedkitProperties {

	/**
	 * Prefix of every key Redkit writes. Must not contain '{', '}', whitespace or control
	 * characters.
	 */
	private String keyPrefix = "redkit";

	/**
	 * Most threads that send the scripts of callers that must not block (event loops,
	 * Redkit's own asynchronous steps; without a shared native connection, every caller)
	 * while a connection is made or borrowed from the pool; further scripts wait for one
	 * of them. Defaults to the pool's max-active (8 without a pool).
	 */
	private @Nullable Integer handOffThreads;

	/**
	 * Whether a server's native command is sent in place of a script that does the same,
	 * where the server was found at start-up to have it; scripts only when false. On
	 * Valkey 8.1 and Redis 8.4 a lock's release is one SET IFEQ while nobody waits.
	 */
	private boolean nativeCommands = true;

	/**
	 * Reactive beans (ReactiveRateLimiter and the others) and the WebFlux support.
	 */
	private final Reactive reactive = new Reactive();

	/**
	 * Redkit's meters.
	 */
	private final Metrics metrics = new Metrics();

	public String getKeyPrefix() {
		return this.keyPrefix;
	}

	public void setKeyPrefix(String keyPrefix) {
		this.keyPrefix = keyPrefix;
	}

	public @Nullable Integer getHandOffThreads() {
		return this.handOffThreads;
	}

	public void setHandOffThreads(@Nullable Integer handOffThreads) {
		this.handOffThreads = handOffThreads;
	}

	public boolean isNativeCommands() {
		return this.nativeCommands;
	}

	public void setNativeCommands(boolean nativeCommands) {
		this.nativeCommands = nativeCommands;
	}

	public Reactive getReactive() {
		return this.reactive;
	}

	public Metrics getMetrics() {
		return this.metrics;
	}

	/**
	 * Redkit's reactive faces.
	 */
	public static class Reactive {

		/**
		 * Whether the reactive beans are created. By default they are in a reactive web
		 * application only; true creates them in any application with Reactor, false in
		 * none.
		 */
		private @Nullable Boolean enabled;

		public @Nullable Boolean getEnabled() {
			return this.enabled;
		}

		public void setEnabled(@Nullable Boolean enabled) {
			this.enabled = enabled;
		}

	}

	/**
	 * Redkit's meters.
	 */
	public static class Metrics {

		/**
		 * How old the value of a gauge read from Redis (queue depths and ages, the
		 * doctor's findings, Resilience4j's available permissions) may be before a scrape
		 * asks for the next one. A scrape never waits for Redis: it reads the last value,
		 * and the next is read in the background, one read per gauge family at a time.
		 */
		private Duration gaugeRefresh = Duration.ofSeconds(10);

		public Duration getGaugeRefresh() {
			return this.gaugeRefresh;
		}

		public void setGaugeRefresh(Duration gaugeRefresh) {
			this.gaugeRefresh = gaugeRefresh;
		}

	}

}
