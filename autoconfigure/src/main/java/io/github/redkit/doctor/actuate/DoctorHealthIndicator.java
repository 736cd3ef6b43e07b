package io.github.redkit.doctor.actuate;

import io.github.redkit.doctor.DoctorReport;
import io.github.redkit.doctor.ServerDoctor;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * The server doctor in health: always {@code UP}, since a setting that may take away a
 * guarantee does not stop this instance from serving, with the server, its risks and what
 * could not be checked in the details, so that a setting changed at run time is seen.
 */
public final class DoctorHealthIndicator extends AbstractHealthIndicator {

	private final ServerDoctor doctor;

	/**
	 * Creates the indicator.
	 * @param doctor the doctor
	 */
	public DoctorHealthIndicator(ServerDoctor doctor) {
		super("Redkit server doctor failed");
		this.doctor = doctor;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		DoctorReport report = this.doctor.examine();
		builder.up()
			.withDetail("server", report.server())
			.withDetail("risks", report.risks())
			.withDetail("notChecked", report.notChecked());
	}

}
