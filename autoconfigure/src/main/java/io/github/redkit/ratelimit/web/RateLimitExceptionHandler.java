package io.github.redkit.ratelimit.web;

import java.net.URI;

import io.github.redkit.core.internal.Problems;
import io.github.redkit.core.web.QuotaHeaders;
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
 * {@code RateLimit} and {@code RateLimit-Policy}, and a ProblemDetail of the draft's
 * {@code quota-exceeded} type listing the {@code violated-policies}) and an undecidable
 * one into {@code 503 Service Unavailable} with a ProblemDetail. Ordered before the
 * application's own advice so that a catch-all handler does not turn them into 500s.
 */
@RestControllerAdvice
@Order(Ordered.HIGHEST_PRECEDENCE + 100)
public class RateLimitExceptionHandler {

	@ExceptionHandler(RateLimitExceededException.class)
	ResponseEntity<ProblemDetail> rateLimitExceeded(RateLimitExceededException ex) {
		return tooManyRequests(ex);
	}

	@ExceptionHandler(RateLimiterUnavailableException.class)
	ResponseEntity<ProblemDetail> rateLimiterUnavailable(RateLimiterUnavailableException ex) {
		return unavailable(ex);
	}

	/**
	 * The answer to a refused call, for whatever writes it (this advice, or a filter that
	 * refuses before any handler runs).
	 * @param ex the refusal
	 * @return the {@code 429} response
	 */
	public static ResponseEntity<ProblemDetail> tooManyRequests(RateLimitExceededException ex) {
		long retryAfter = Math.max(QuotaHeaders.seconds(ex.getRetryAfter()), 1);
		ProblemDetail problem = Problems.of(HttpStatus.TOO_MANY_REQUESTS, "Too Many Requests",
				"Rate limit '" + ex.getLimitName() + "' exceeded; retry after " + retryAfter + " s");
		problem.setType(URI.create(QuotaHeaders.QUOTA_EXCEEDED));
		problem.setProperty(QuotaHeaders.VIOLATED_POLICIES,
				RateLimitHeaders.violatedPolicies(ex.getLimitName(), ex.getDecision()));
		problem.setProperty("limit", ex.getLimitName());
		problem.setProperty("retryAfterSeconds", retryAfter);
		HttpHeaders headers = new HttpHeaders();
		headers.set(HttpHeaders.RETRY_AFTER, String.valueOf(retryAfter));
		String partitionKey = QuotaHeaders.partitionKey(ex.getKeys());
		RateLimitPolicy policy = ex.getPolicy();
		if (policy != null) {
			headers.set(QuotaHeaders.POLICY, RateLimitHeaders.policy(ex.getLimitName(), policy, partitionKey));
		}
		String state = RateLimitHeaders.state(ex.getLimitName(), ex.getDecision(), partitionKey);
		if (state != null) {
			headers.set(QuotaHeaders.STATE, state);
		}
		RateLimitHeaders.degraded(ex.getDecision(), headers::set);
		return ResponseEntity.status(HttpStatus.TOO_MANY_REQUESTS).headers(headers).body(problem);
	}

	/**
	 * The answer to a call that could not be decided while the failure mode is
	 * {@code deny}.
	 * @param ex the failure
	 * @return the {@code 503} response
	 */
	public static ResponseEntity<ProblemDetail> unavailable(RateLimiterUnavailableException ex) {
		long retryAfter = Math.max(QuotaHeaders.seconds(ex.getRetryAfter()), 1);
		ProblemDetail problem = Problems.of(HttpStatus.SERVICE_UNAVAILABLE, "Service Unavailable",
				"Rate limit '" + ex.getLimitName() + "' cannot be checked right now; retry after " + retryAfter + " s");
		problem.setProperty("limit", ex.getLimitName());
		return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
			.header(HttpHeaders.RETRY_AFTER, String.valueOf(retryAfter))
			.body(problem);
	}

}
