package io.github.redkit.core.web;

import io.github.redkit.core.KeyExpressionException;
import io.github.redkit.core.internal.Problems;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Maps a key that the request could not give (a key expression of a Redkit annotation
 * that evaluated to null or to an empty string, or failed on the request's arguments) to
 * 400 Bad Request with a ProblemDetail body that says why, in Spring MVC and in WebFlux.
 */
@RestControllerAdvice
public class KeyExpressionExceptionHandler {

	@ExceptionHandler(KeyExpressionException.class)
	ResponseEntity<ProblemDetail> invalidKey(KeyExpressionException ex) {
		return Problems.answer(Problems.of(HttpStatus.BAD_REQUEST, "Invalid request key", ex.getMessage()));
	}

}
