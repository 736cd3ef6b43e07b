package io.github.redkit.doctor;

import java.util.List;

/**
 * One thing the server doctor checked, and what it means for the capabilities that need
 * it.
 *
 * @param check what was checked, such as {@code maxmemory-policy}
 * @param status the verdict
 * @param capabilities the capabilities whose guarantees depend on it
 * @param detail what was found and what it means, in a sentence
 */
public record DoctorFinding(String check, Status status, List<String> capabilities, String detail) {

	/**
	 * Creates a finding.
	 * @param check what was checked
	 * @param status the verdict
	 * @param capabilities the capabilities concerned, copied
	 * @param detail what was found
	 */
	public DoctorFinding {
		capabilities = List.copyOf(capabilities);
	}

	/**
	 * The doctor's verdict on one check.
	 */
	public enum Status {

		/** The setting keeps what the capabilities need. */
		OK,

		/** Worth knowing, but it takes no guarantee the documentation makes. */
		NOTE,

		/** The setting may take away a guarantee of the capabilities named. */
		RISK,

		/** The server did not answer or refused to tell ({@code CONFIG} disabled). */
		NOT_CHECKED

	}

}
