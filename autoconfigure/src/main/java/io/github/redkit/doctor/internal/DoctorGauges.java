package io.github.redkit.doctor.internal;

import java.util.Locale;

import io.github.redkit.core.RedkitMeter;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.internal.BackgroundReads;
import io.github.redkit.doctor.DoctorFinding.Status;
import io.github.redkit.doctor.DoctorReport;
import io.github.redkit.doctor.ServerDoctor;

/**
 * The doctor's findings as gauges: {@code redkit.doctor.findings}, tag {@code status}
 * ({@code risk}, {@code not-checked}, {@code note}, {@code ok}), the number of findings
 * of the last examination with that status. A scrape never waits for Redis: it reads the
 * last report and the next examination runs in the background ({@link BackgroundReads});
 * NaN before the first report and while an examination is late. Closing the gauges ends
 * their examinations' thread.
 */
public final class DoctorGauges implements AutoCloseable {

	private static final RedkitMeter FINDINGS = RedkitMeter.gauge("redkit.doctor.findings",
			"The server doctor's findings of its last examination, by status");

	private final BackgroundReads reads;

	private final BackgroundReads.Value<DoctorReport> report;

	/**
	 * Creates the gauges; nothing is examined before the first scrape.
	 * @param doctor the doctor
	 * @param reads examines in the background
	 */
	public DoctorGauges(ServerDoctor doctor, BackgroundReads reads) {
		this.reads = reads;
		this.report = reads.value(doctor::examine);
	}

	/**
	 * Ends the examinations' thread, with the application context.
	 */
	@Override
	public void close() {
		this.reads.close();
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
		DoctorReport last = this.report.get();
		return (last != null) ? last.findings().stream().filter((finding) -> finding.status() == status).count()
				: Double.NaN;
	}

}
