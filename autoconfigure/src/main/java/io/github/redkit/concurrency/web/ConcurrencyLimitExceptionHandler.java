package io.github.redkit.concurrency.web;

import java.net.URI;
import java.util.List;

import io.github.redkit.concurrency.ConcurrencyLimitExceededException;
import io.github.redkit.concurrency.ConcurrencyLimiterUnavailableException;
import io.github.redkit.core.internal.Problems;
import io.github.redkit.core.web.QuotaHeaders;

import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Turns a call refused by its concurrency limit into {@code 429 Too Many Requests} with
 * the IETF fields of a {@code concurrent-requests} quota and the draft's
 * {@code quota-exceeded} problem, and an uncheckable one into
 * {@code 503 Service Unavailable}: <pre>
 * RateLimit-Policy: "exports";q=4;qu="concurrent-requests";pk=:3q2+7wAAAAAA:
 * RateLimit: "exports";r=0;pk=:3q2+7wAAAAAA:
 * </pre> The answers name the limit, never the key, which may hold request data: the
 * partition key is a hash of it ({@link QuotaHeaders#partitionKey}). Ordered before the
 * application's own advice so that a catch-all handler does not turn them into 500s.
 */
@RestControllerAdvice
@Order(Ordered.HIGHEST_PRECEDENCE + 100)
public class ConcurrencyLimitExceptionHandler {

	/** The quota unit of a concurrency limit in the {@code RateLimit-Policy} field. */
	public static final String QUOTA_UNIT = "concurrent-requests";

	@ExceptionHandler(ConcurrencyLimitExceededException.class)
	ResponseEntity<ProblemDetail> exceeded(ConcurrencyLimitExceededException ex) {
		String name = ex.getLimitName();
		ProblemDetail problem = Problems.of(HttpStatus.TOO_MANY_REQUESTS, "Too Many Requests",
				"Concurrency limit '" + name + "' reached; try again when a running request has finished.");
		problem.setType(URI.create(QuotaHeaders.QUOTA_EXCEEDED));
		problem.setProperty(QuotaHeaders.VIOLATED_POLICIES, List.of(name));
		problem.setProperty("limit", name);
		HttpHeaders headers = new HttpHeaders();
		String item = QuotaHeaders.quoted(name);
		String key = ex.getKey();
		String pk = (key != null) ? ";pk=" + QuotaHeaders.partitionKey(List.of(key)) : "";
		if (ex.getLimit() > 0) {
			headers.set(QuotaHeaders.POLICY, item + ";q=" + ex.getLimit() + ";qu=\"" + QUOTA_UNIT + "\"" + pk);
		}
		headers.set(QuotaHeaders.STATE, item + ";r=0" + pk);
		return ResponseEntity.status(HttpStatus.TOO_MANY_REQUESTS).headers(headers).body(problem);
	}

	@ExceptionHandler(ConcurrencyLimiterUnavailableException.class)
	ResponseEntity<ProblemDetail> unavailable(ConcurrencyLimiterUnavailableException ex) {
		ProblemDetail problem = Problems.of(HttpStatus.SERVICE_UNAVAILABLE, "Service Unavailable",
				"Concurrency limit '" + ex.getLimitName() + "' cannot be checked right now; try again later.");
		problem.setProperty("limit", ex.getLimitName());
		long retryAfter = Math.max(QuotaHeaders.seconds(ex.getRetryAfter()), 1);
		return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
			.header(HttpHeaders.RETRY_AFTER, String.valueOf(retryAfter))
			.body(problem);
	}

}
