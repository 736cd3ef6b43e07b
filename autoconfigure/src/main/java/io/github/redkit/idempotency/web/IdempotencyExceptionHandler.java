package io.github.redkit.idempotency.web;

import io.github.redkit.core.Problems;
import io.github.redkit.idempotency.IdempotencyKeyReusedException;
import io.github.redkit.idempotency.StepClaimLostException;
import io.github.redkit.idempotency.StepInProgressException;
import io.github.redkit.idempotency.StepOutOfOrderException;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Maps the refusals of {@code @IdempotentStep} to HTTP answers with a ProblemDetail body:
 * a step out of order is 409 Conflict (the request is valid but the operation's state
 * does not allow it), a step in progress is 409 Conflict (retry later), a claim lost
 * while the step ran is 409 Conflict, and an idempotency key reused with another payload
 * is 422 Unprocessable Content.
 */
@RestControllerAdvice
public class IdempotencyExceptionHandler {

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

	@ExceptionHandler(IdempotencyKeyReusedException.class)
	ResponseEntity<ProblemDetail> keyReused(IdempotencyKeyReusedException ex) {
		ProblemDetail problem = Problems.of(HttpStatus.UNPROCESSABLE_CONTENT, "Idempotency key reused",
				ex.getMessage());
		return Problems.answer(problem);
	}

}
