package io.github.redkit.doctor;

import java.util.stream.Collectors;

/**
 * Thrown at start-up, with {@code redkit.doctor.on-risk=fail}, when the Redis server's
 * settings may take away a guarantee of a capability in use.
 */
public class ServerRiskException extends RuntimeException {

	private final DoctorReport report;

	/**
	 * Creates the exception from the report whose risks it names.
	 * @param report the doctor's report
	 */
	public ServerRiskException(DoctorReport report) {
		super("The Redis server (" + report.server() + ") may take away guarantees Redkit makes: "
				+ report.risks()
					.stream()
					.map((risk) -> risk.check() + " (" + String.join(", ", risk.capabilities()) + "): " + risk.detail())
					.collect(Collectors.joining("; "))
				+ ". Change the server's settings, or set redkit.doctor.on-risk=warn to start anyway.");
		this.report = report;
	}

	/**
	 * The report whose risks stopped the start-up.
	 * @return the report
	 */
	public DoctorReport getReport() {
		return this.report;
	}

}
