package io.github.redkit.core.internal;

import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;

/**
 * The problem-detail answers of Redkit's web handlers, built one way: a status, a title,
 * a detail that never holds a key or a payload, then the capability's own properties.
 */
public final class Problems {

	private Problems() {
	}

	/**
	 * A problem detail.
	 * @param status the status
	 * @param title the title
	 * @param detail what happened, for people
	 * @return the problem, to add properties to
	 */
	public static ProblemDetail of(HttpStatus status, String title, @Nullable String detail) {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
		problem.setTitle(title);
		return problem;
	}

	/**
	 * The answer that carries a problem, with its status.
	 * @param problem the problem
	 * @return the response entity
	 */
	public static ResponseEntity<ProblemDetail> answer(ProblemDetail problem) {
		return ResponseEntity.status(problem.getStatus()).body(problem);
	}

}
