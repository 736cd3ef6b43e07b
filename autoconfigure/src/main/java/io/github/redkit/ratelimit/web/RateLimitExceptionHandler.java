package io.github.redkit.ratelimit.web;

import io.github.redkit.ratelimit.RateLimitExceededException;
import io.github.redkit.ratelimit.RateLimitPolicy;
import io.github.redkit.ratelimit.RateLimiterUnavailableException;

import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Turns a refused call into {@code 429 Too Many Requests} (with {@code Retry-After},
 * {@code RateLimit} and {@code RateLimit-Policy}) and an undecidable one into
 * {@code 503 Service Unavailable}, each with a ProblemDetail body. Ordered before the
 * application's own advice so that a catch-all handler does not turn them into 500s.
 */
@RestControllerAdvice
@Order(Ordered.HIGHEST_PRECEDENCE + 100)
public class RateLimitExceptionHandler {

	@ExceptionHandler(RateLimitExceededException.class)
	ResponseEntity<ProblemDetail> rateLimitExceeded(RateLimitExceededException ex) {
		long retryAfter = Math.max(RateLimitHeaders.seconds(ex.getRetryAfter()), 1);
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.TOO_MANY_REQUESTS,
				"Rate limit '" + ex.getLimitName() + "' exceeded; retry after " + retryAfter + " s");
		problem.setTitle("Too Many Requests");
		problem.setProperty("limit", ex.getLimitName());
		problem.setProperty("retryAfterSeconds", retryAfter);
		HttpHeaders headers = new HttpHeaders();
		headers.set(HttpHeaders.RETRY_AFTER, String.valueOf(retryAfter));
		RateLimitPolicy policy = ex.getPolicy();
		if (policy != null) {
			headers.set(RateLimitHeaders.POLICY, RateLimitHeaders.policy(ex.getLimitName(), policy));
		}
		String state = RateLimitHeaders.state(ex.getLimitName(), ex.getDecision());
		if (state != null) {
			headers.set(RateLimitHeaders.STATE, state);
		}
		return ResponseEntity.status(HttpStatus.TOO_MANY_REQUESTS).headers(headers).body(problem);
	}

	@ExceptionHandler(RateLimiterUnavailableException.class)
	ResponseEntity<ProblemDetail> rateLimiterUnavailable(RateLimiterUnavailableException ex) {
		long retryAfter = Math.max(RateLimitHeaders.seconds(ex.getRetryAfter()), 1);
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE,
				"Rate limit '" + ex.getLimitName() + "' cannot be checked right now; retry after " + retryAfter + " s");
		problem.setTitle("Service Unavailable");
		problem.setProperty("limit", ex.getLimitName());
		return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
			.header(HttpHeaders.RETRY_AFTER, String.valueOf(retryAfter))
			.body(problem);
	}

}
