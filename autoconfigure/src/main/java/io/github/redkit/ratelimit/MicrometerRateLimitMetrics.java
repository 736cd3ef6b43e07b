package io.github.redkit.ratelimit;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/**
 * Rate-limit metrics in Micrometer: {@code redkit.ratelimit.decisions} (counter, tags
 * {@code limit} and {@code outcome}), {@code redkit.ratelimit.duration} (timer, tag
 * {@code limit}) and {@code redkit.ratelimit.refunds} (counter, tags {@code limit} and
 * {@code outcome}: permits given back on a cluster). No tag is built from a key.
 */
public class MicrometerRateLimitMetrics implements RateLimitMetrics {

	/** The decision counter. */
	public static final String DECISIONS = "redkit.ratelimit.decisions";

	/** The decision latency timer. */
	public static final String DURATION = "redkit.ratelimit.duration";

	/** The give-back counter. */
	public static final String REFUNDS = "redkit.ratelimit.refunds";

	private final MeterRegistry registry;

	private final Map<String, Meters> meters = new ConcurrentHashMap<>();

	/**
	 * Creates metrics on a registry.
	 * @param registry the registry
	 */
	public MicrometerRateLimitMetrics(MeterRegistry registry) {
		this.registry = registry;
	}

	@Override
	public void record(String limitName, Outcome outcome, long nanos) {
		Meters limit = this.meters.computeIfAbsent(limitName, this::register);
		limit.counters[outcome.ordinal()].increment();
		limit.timer.record(nanos, TimeUnit.NANOSECONDS);
	}

	@Override
	public void recordRefund(String limitName, RefundOutcome outcome) {
		this.meters.computeIfAbsent(limitName, this::register).refunds[outcome.ordinal()].increment();
	}

	private Meters register(String limitName) {
		Counter[] counters = new Counter[Outcome.values().length];
		for (Outcome outcome : Outcome.values()) {
			counters[outcome.ordinal()] = Counter.builder(DECISIONS)
				.description("Rate-limit decisions")
				.tag("limit", limitName)
				.tag("outcome", outcome.tag())
				.register(this.registry);
		}
		Timer timer = Timer.builder(DURATION)
			.description("Time to decide a rate-limited call")
			.tag("limit", limitName)
			.register(this.registry);
		Counter[] refunds = new Counter[RefundOutcome.values().length];
		for (RefundOutcome outcome : RefundOutcome.values()) {
			refunds[outcome.ordinal()] = Counter.builder(REFUNDS)
				.description("Give-backs of permits that cluster slots took for a call another slot refused")
				.tag("limit", limitName)
				.tag("outcome", outcome.tag())
				.register(this.registry);
		}
		return new Meters(counters, timer, refunds);
	}

	private record Meters(Counter[] counters, Timer timer, Counter[] refunds) {
	}

}
