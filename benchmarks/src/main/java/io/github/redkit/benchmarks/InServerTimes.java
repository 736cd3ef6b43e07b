package io.github.redkit.benchmarks;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.jspecify.annotations.Nullable;

/**
 * What the HTTP benchmark's application times inside itself, per endpoint: each request
 * from the server's first filter until its response is written, the call of the
 * endpoint's method through its proxy (the advised method: Redkit's decision and the
 * trivial handler), and every Redis command's round trip as Lettuce's event loop sees it
 * (written to the socket until its reply is decoded). Recording is wait-free
 * (HdrHistogram's {@link Recorder}, 3 significant digits: a value is kept within 0.1%);
 * {@link #take} hands out what was recorded since the last take or {@link #clear}.
 */
final class InServerTimes {

	// a request that took longer is kept as this long: far beyond the wrk timeout
	private static final long HIGHEST_NANOS = TimeUnit.SECONDS.toNanos(60);

	private static final int DIGITS = 3;

	private final Map<String, Recorder> service = new HashMap<>();

	private final Map<String, Recorder> advised = new HashMap<>();

	private final Recorder redisRoundTrip = new Recorder(HIGHEST_NANOS, DIGITS);

	private final AtomicInteger inFlight = new AtomicInteger();

	InServerTimes() {
		for (HttpEndpoint endpoint : HttpEndpoint.values()) {
			this.service.put(endpoint.path(), new Recorder(HIGHEST_NANOS, DIGITS));
			this.advised.put(endpoint.path(), new Recorder(HIGHEST_NANOS, DIGITS));
		}
	}

	/**
	 * A request entered the server.
	 * @return its start, for {@link #service}
	 */
	long started() {
		this.inFlight.incrementAndGet();
		return System.nanoTime();
	}

	/**
	 * A request's response was written: records its time in the server.
	 * @param path the request's path (other paths are not recorded)
	 * @param start what {@link #started()} returned for it
	 */
	void service(String path, long start) {
		record(this.service.get(path), System.nanoTime() - start);
		this.inFlight.decrementAndGet();
	}

	/**
	 * Waits until no request is in the server (those a slice's client left when it
	 * stopped), so that the next slice's times, the Redis round trips above all, are its
	 * own.
	 * @param timeout how long at most
	 */
	void awaitIdle(Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (this.inFlight.get() > 0 && System.nanoTime() < deadline) {
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
		}
	}

	/**
	 * Records a call of an endpoint's method through its proxy.
	 * @param path the endpoint's path
	 * @param nanos from the call until it returned (for a {@code Mono}, until its value)
	 */
	void advised(String path, long nanos) {
		record(this.advised.get(path), nanos);
	}

	/**
	 * Records a Redis command's round trip.
	 * @param nanos from its write until its reply was decoded
	 */
	void redisRoundTrip(long nanos) {
		record(this.redisRoundTrip, nanos);
	}

	/**
	 * Drops what was recorded so far (a warm-up's, a saturated run's).
	 */
	void clear() {
		this.service.values().forEach(Recorder::reset);
		this.advised.values().forEach(Recorder::reset);
		this.redisRoundTrip.reset();
	}

	/**
	 * What was recorded since the last take or clear; the Redis round trips are every
	 * command's, so a slice is to run one endpoint only.
	 * @param endpoint the endpoint
	 * @return its times in nanoseconds
	 */
	Sample take(HttpEndpoint endpoint) {
		return new Sample(recorder(this.service, endpoint).getIntervalHistogram(),
				recorder(this.advised, endpoint).getIntervalHistogram(), this.redisRoundTrip.getIntervalHistogram());
	}

	private static Recorder recorder(Map<String, Recorder> recorders, HttpEndpoint endpoint) {
		return Objects.requireNonNull(recorders.get(endpoint.path()), endpoint.path());
	}

	private static void record(@Nullable Recorder recorder, long nanos) {
		if (recorder != null) {
			recorder.recordValue(Math.min(Math.max(nanos, 0), HIGHEST_NANOS));
		}
	}

	/**
	 * One slice's times, in nanoseconds.
	 *
	 * @param service each request in the server
	 * @param advised each call of the endpoint's method through its proxy
	 * @param redisRoundTrip each Redis command's round trip
	 */
	record Sample(Histogram service, Histogram advised, Histogram redisRoundTrip) {

		static Sample empty() {
			return new Sample(new Histogram(HIGHEST_NANOS, DIGITS), new Histogram(HIGHEST_NANOS, DIGITS),
					new Histogram(HIGHEST_NANOS, DIGITS));
		}

		void addTo(Sample total) {
			total.service.add(this.service);
			total.advised.add(this.advised);
			total.redisRoundTrip.add(this.redisRoundTrip);
		}

	}

}
