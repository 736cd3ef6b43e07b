package io.github.redkit.doctor.internal;

import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.redkit.core.RedkitMeter;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.internal.RedkitThreads;
import io.github.redkit.doctor.DoctorFinding.Status;
import io.github.redkit.doctor.DoctorReport;
import io.github.redkit.doctor.ServerDoctor;
import org.jspecify.annotations.Nullable;

/**
 * The doctor's findings as gauges: {@code redkit.doctor.findings}, tag {@code status}
 * ({@code risk}, {@code not-checked}, {@code note}, {@code ok}), the number of findings
 * of the last examination with that status. A scrape never waits for Redis: it reads the
 * last report (NaN before the first) and, when that is older than the refresh interval,
 * starts the next examination on a thread of its own, one at a time, so that a Redis that
 * does not answer cannot make the scrape itself time out.
 */
public final class DoctorGauges {

	/** How old the last report may be before a scrape asks for a new one. */
	public static final Duration REFRESH = Duration.ofSeconds(10);

	private static final RedkitMeter FINDINGS = RedkitMeter.gauge("redkit.doctor.findings",
			"The server doctor's findings of its last examination, by status");

	private final ServerDoctor doctor;

	private final Executor executor;

	private final long refreshNanos;

	private final AtomicBoolean examining = new AtomicBoolean();

	private volatile @Nullable DoctorReport last;

	private volatile long lastAt;

	/**
	 * Creates the gauges; nothing is examined before the first scrape.
	 * @param doctor the doctor
	 * @param refresh how old the last report may be before a scrape asks for a new one
	 */
	public DoctorGauges(ServerDoctor doctor, Duration refresh) {
		this(doctor, refresh, RedkitThreads.bounded(RedkitThreads.factory("redkit-doctor-gauges"), 1));
	}

	DoctorGauges(ServerDoctor doctor, Duration refresh, Executor executor) {
		this.doctor = doctor;
		this.refreshNanos = refresh.toNanos();
		this.executor = executor;
	}

	/**
	 * Registers one gauge per status.
	 * @param metrics where to register them
	 */
	public void bindTo(RedkitMetrics metrics) {
		for (Status status : Status.values()) {
			metrics.gauge(FINDINGS, this, (gauges) -> gauges.count(status), "status", tag(status));
		}
	}

	static String tag(Status status) {
		return status.name().toLowerCase(Locale.ROOT).replace('_', '-');
	}

	private double count(Status status) {
		DoctorReport report = this.last;
		if (report == null || System.nanoTime() - this.lastAt > this.refreshNanos) {
			examineLater();
		}
		return (report != null) ? report.findings().stream().filter((finding) -> finding.status() == status).count()
				: Double.NaN;
	}

	private void examineLater() {
		if (!this.examining.compareAndSet(false, true)) {
			return;
		}
		try {
			this.executor.execute(() -> {
				try {
					this.last = this.doctor.examine();
					this.lastAt = System.nanoTime();
				}
				finally {
					this.examining.set(false);
				}
			});
		}
		catch (RuntimeException ex) {
			this.examining.set(false);
		}
	}

}
