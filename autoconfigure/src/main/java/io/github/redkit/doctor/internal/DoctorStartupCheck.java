package io.github.redkit.doctor.internal;

import io.github.redkit.doctor.DoctorFinding;
import io.github.redkit.doctor.DoctorFinding.Status;
import io.github.redkit.doctor.DoctorReport;
import io.github.redkit.doctor.ServerDoctor;
import io.github.redkit.doctor.ServerRiskException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * Examines the server once every singleton exists: logs what may take away a guarantee
 * and, when asked to, stops the start-up. A server that does not answer or refuses to
 * tell never stops it: what could not be checked is logged.
 */
public final class DoctorStartupCheck implements SmartInitializingSingleton {

	private static final Log logger = LogFactory.getLog(DoctorStartupCheck.class);

	private final ServerDoctor doctor;

	private final boolean failOnRisk;

	/**
	 * Creates the check.
	 * @param doctor the doctor
	 * @param failOnRisk whether a risk stops the start-up
	 */
	public DoctorStartupCheck(ServerDoctor doctor, boolean failOnRisk) {
		this.doctor = doctor;
		this.failOnRisk = failOnRisk;
	}

	@Override
	public void afterSingletonsInstantiated() {
		DoctorReport report = this.doctor.examine();
		if (this.failOnRisk && !report.risks().isEmpty()) {
			throw new ServerRiskException(report);
		}
		for (DoctorFinding finding : report.findings()) {
			String line = "Redkit's server doctor on " + report.server() + ": " + finding.check() + " ("
					+ String.join(", ", finding.capabilities()) + ") " + finding.status() + ": " + finding.detail();
			if (finding.status() == Status.RISK || finding.status() == Status.NOT_CHECKED) {
				logger.warn(line);
			}
			else if (finding.status() == Status.NOTE) {
				logger.info(line);
			}
			else {
				logger.debug(line);
			}
		}
	}

}
