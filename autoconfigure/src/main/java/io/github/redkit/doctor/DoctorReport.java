package io.github.redkit.doctor;

import java.util.List;

/**
 * What the server doctor found on one examination.
 *
 * @param server the server as it describes itself, such as {@code Redis 7.0.15
 * standalone}, or {@code unknown} when it did not answer
 * @param findings one per check, risks first
 */
public record DoctorReport(String server, List<DoctorFinding> findings) {

	/**
	 * Creates a report.
	 * @param server the server
	 * @param findings the findings, copied
	 */
	public DoctorReport {
		findings = List.copyOf(findings);
	}

	/**
	 * The findings that may take away a guarantee.
	 * @return the risks, possibly none
	 */
	public List<DoctorFinding> risks() {
		return with(DoctorFinding.Status.RISK);
	}

	/**
	 * The checks the server did not let the doctor make.
	 * @return the findings not checked, possibly none
	 */
	public List<DoctorFinding> notChecked() {
		return with(DoctorFinding.Status.NOT_CHECKED);
	}

	private List<DoctorFinding> with(DoctorFinding.Status status) {
		return this.findings.stream().filter((finding) -> finding.status() == status).toList();
	}

}
