package io.github.redkit.lock.web;

import io.github.redkit.core.internal.Problems;
import io.github.redkit.lock.LockNotAcquiredException;
import io.github.redkit.lock.LockUnavailableException;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Maps lock failures in Spring MVC: a lock held by someone else to {@code 409 Conflict},
 * Redis unreachable to {@code 503 Service Unavailable}, both as problem details. The body
 * names the lock (its key expression), never the evaluated key, which may hold request
 * data.
 */
@RestControllerAdvice
public class LockExceptionHandler {

	@ExceptionHandler(LockNotAcquiredException.class)
	ResponseEntity<ProblemDetail> notAcquired(LockNotAcquiredException ex) {
		ProblemDetail problem = Problems.of(HttpStatus.CONFLICT, "Lock not acquired",
				"The resource is locked by another request; try again later.");
		problem.setProperty("lock", ex.getLockName());
		problem.setProperty("waitedMillis", ex.getWaited().toMillis());
		return Problems.answer(problem);
	}

	@ExceptionHandler(LockUnavailableException.class)
	ResponseEntity<ProblemDetail> unavailable(LockUnavailableException ex) {
		return Problems.answer(Problems.of(HttpStatus.SERVICE_UNAVAILABLE, "Lock unavailable",
				"The lock service is unavailable; try again later."));
	}

}
