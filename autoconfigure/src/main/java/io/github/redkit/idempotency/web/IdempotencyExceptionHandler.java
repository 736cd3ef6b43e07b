package io.github.redkit.idempotency.web;

import io.github.redkit.core.internal.Problems;
import io.github.redkit.idempotency.IdempotencyKeyReusedException;
import io.github.redkit.idempotency.StepClaimLostException;
import io.github.redkit.idempotency.StepInProgressException;
import io.github.redkit.idempotency.StepOutOfOrderException;
import io.github.redkit.idempotency.StepResultTooLargeException;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Maps the refusals of {@code @IdempotentStep} to HTTP answers with a ProblemDetail body:
 * a step out of order is 409 Conflict (the request is valid but the operation's state
 * does not allow it), a step in progress is 409 Conflict (retry later), a claim lost
 * while the step ran is 409 Conflict, an idempotency key reused with another payload is
 * 422 Unprocessable Content, and a result with more elements than a step records is 500
 * Internal Server Error naming the limit and the property that sets it.
 */
@RestControllerAdvice
public class IdempotencyExceptionHandler {

	private static final String MAX_FLUX_ELEMENTS = "redkit.idempotency.max-flux-elements";

	@ExceptionHandler(StepOutOfOrderException.class)
	ResponseEntity<ProblemDetail> outOfOrder(StepOutOfOrderException ex) {
		ProblemDetail problem = Problems.of(HttpStatus.CONFLICT, "Step out of order", ex.getMessage());
		problem.setProperty("step", ex.getStep());
		problem.setProperty("expectedSteps", ex.getExpectedSteps());
		problem.setProperty("recordedSteps", ex.getRecordedSteps());
		return Problems.answer(problem);
	}

	@ExceptionHandler(StepInProgressException.class)
	ResponseEntity<ProblemDetail> inProgress(StepInProgressException ex) {
		ProblemDetail problem = Problems.of(HttpStatus.CONFLICT, "Step in progress", ex.getMessage());
		problem.setProperty("step", ex.getStep());
		return Problems.answer(problem);
	}

	@ExceptionHandler(StepClaimLostException.class)
	ResponseEntity<ProblemDetail> claimLost(StepClaimLostException ex) {
		ProblemDetail problem = Problems.of(HttpStatus.CONFLICT, "Step claim lost", ex.getMessage());
		problem.setProperty("step", ex.getStep());
		return Problems.answer(problem);
	}

	@ExceptionHandler(StepResultTooLargeException.class)
	ResponseEntity<ProblemDetail> resultTooLarge(StepResultTooLargeException ex) {
		ProblemDetail problem = Problems.of(HttpStatus.INTERNAL_SERVER_ERROR, "Step result too large",
				"The step emitted more than " + ex.getLimit() + " elements, more than a step records ("
						+ MAX_FLUX_ELEMENTS + "); it was abandoned and nothing was recorded");
		problem.setProperty("step", ex.getStep());
		problem.setProperty("limit", ex.getLimit());
		problem.setProperty("property", MAX_FLUX_ELEMENTS);
		return Problems.answer(problem);
	}

	@ExceptionHandler(IdempotencyKeyReusedException.class)
	ResponseEntity<ProblemDetail> keyReused(IdempotencyKeyReusedException ex) {
		ProblemDetail problem = Problems.of(HttpStatus.UNPROCESSABLE_CONTENT, "Idempotency key reused",
				ex.getMessage());
		return Problems.answer(problem);
	}

}
