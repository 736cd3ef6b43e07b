package io.github.redkit.cache;

import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/**
 * {@link CacheEvents} as Micrometer meters: {@code redkit.cache.single-flight.waits}
 * (timer; tags {@code cache}, {@code outcome}), {@code redkit.cache.single-flight.loads},
 * {@code redkit.cache.early-refreshes} and {@code redkit.cache.redis-errors} (counters).
 */
public final class MicrometerCacheEvents implements CacheEvents {

	private final Supplier<MeterRegistry> registrySupplier;

	private volatile MeterRegistry registry;

	/**
	 * Creates the meters lazily in a registry.
	 * @param registry supplies the registry, or {@code null} while there is none
	 */
	public MicrometerCacheEvents(Supplier<MeterRegistry> registry) {
		this.registrySupplier = registry;
	}

	@Override
	public void singleFlightWait(String cacheName, String outcome, long nanos) {
		MeterRegistry registry = registry();
		if (registry != null) {
			Timer.builder("redkit.cache.single-flight.waits")
				.description("Waits for a value another instance was computing")
				.tag("cache", cacheName)
				.tag("outcome", outcome)
				.register(registry)
				.record(nanos, TimeUnit.NANOSECONDS);
		}
	}

	@Override
	public void singleFlightLoad(String cacheName) {
		count("redkit.cache.single-flight.loads", cacheName, null, "Values computed under the single-flight lock");
	}

	@Override
	public void earlyRefresh(String cacheName) {
		count("redkit.cache.early-refreshes", cacheName, null, "Hits recomputed before they expired");
	}

	@Override
	public void redisError(String cacheName, String outcome) {
		count("redkit.cache.redis-errors", cacheName, outcome, "Cache calls that failed in Redis");
	}

	private void count(String name, String cacheName, String outcome, String description) {
		MeterRegistry registry = registry();
		if (registry != null) {
			Counter.Builder counter = Counter.builder(name).description(description).tag("cache", cacheName);
			if (outcome != null) {
				counter.tag("outcome", outcome);
			}
			counter.register(registry).increment();
		}
	}

	private MeterRegistry registry() {
		MeterRegistry current = this.registry;
		if (current == null) {
			current = this.registrySupplier.get();
			this.registry = current;
		}
		return current;
	}

}
