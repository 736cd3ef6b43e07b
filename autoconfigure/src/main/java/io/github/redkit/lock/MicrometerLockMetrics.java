package io.github.redkit.lock;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/**
 * Lock metrics in Micrometer: {@code redkit.lock.acquire} (counter, name + outcome),
 * {@code redkit.lock.wait} (timer, name + outcome), {@code redkit.lock.held} (timer,
 * name), {@code redkit.lock.lease.lost} (counter, name) and {@code redkit.lock.renewals}
 * (counter, name + outcome).
 */
public class MicrometerLockMetrics implements LockMetrics {

	private final MeterRegistry registry;

	// meters are looked up once per name and outcome, not on every call
	private final Map<String, Object> meters = new ConcurrentHashMap<>();

	/**
	 * Creates metrics on a registry.
	 * @param registry the registry
	 */
	public MicrometerLockMetrics(MeterRegistry registry) {
		this.registry = registry;
	}

	@Override
	public void acquireAttempt(String name, String outcome, Duration waited) {
		meter("acquire", name, outcome,
				(n) -> Counter.builder("redkit.lock.acquire")
					.description("Lock acquisition attempts")
					.tags("name", name, "outcome", outcome)
					.register(this.registry),
				Counter.class)
			.increment();
		meter("wait", name, outcome,
				(n) -> Timer.builder("redkit.lock.wait")
					.description("Time spent acquiring a lock, waiting included")
					.tags("name", name, "outcome", outcome)
					.register(this.registry),
				Timer.class)
			.record(waited);
	}

	@Override
	public void held(String name, Duration held) {
		meter("held", name, "",
				(n) -> Timer.builder("redkit.lock.held")
					.description("Time a lock was held")
					.tags("name", name)
					.register(this.registry),
				Timer.class)
			.record(held);
	}

	@Override
	public void leaseLost(String name) {
		meter("lost", name, "",
				(n) -> Counter.builder("redkit.lock.lease.lost")
					.description("Held locks whose lease was lost")
					.tags("name", name)
					.register(this.registry),
				Counter.class)
			.increment();
	}

	@Override
	public void renewal(String name, String outcome) {
		meter("renewals", name, outcome,
				(n) -> Counter.builder("redkit.lock.renewals")
					.description("Lease renewals by the watchdog")
					.tags("name", name, "outcome", outcome)
					.register(this.registry),
				Counter.class)
			.increment();
	}

	private <M> M meter(String meter, String name, String outcome, Function<String, Object> factory, Class<M> type) {
		return type.cast(this.meters.computeIfAbsent(meter + '\u0000' + name + '\u0000' + outcome, factory));
	}

}
