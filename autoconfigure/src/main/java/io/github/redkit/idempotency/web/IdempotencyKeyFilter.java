package io.github.redkit.idempotency.web;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.List;

import io.github.redkit.idempotency.IdempotencyKeyReusedException;
import io.github.redkit.idempotency.IdempotentSteps;
import io.github.redkit.idempotency.StepClaim;
import io.github.redkit.idempotency.StepClaimLostException;
import io.github.redkit.idempotency.internal.HttpIdempotency;
import io.github.redkit.idempotency.internal.IdempotencyKeyRoute;
import io.github.redkit.idempotency.internal.StoredResponse;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.Ordered;
import org.springframework.dao.DataAccessException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.server.PathContainer;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.util.ContentCachingResponseWrapper;
import org.springframework.web.util.WebUtils;

/**
 * Answers each {@code Idempotency-Key} once on Spring MVC routes
 * (draft-ietf-httpapi-idempotency-key-header): the first request with a key runs and its
 * response (status, headers, body) is recorded; a retry of the same request gets the
 * recorded response, marked {@code Idempotent-Replayed: true}; a retry while the first
 * still runs gets {@code 409}; the key with another method, path or body gets
 * {@code 422}; a route that requires a key answers a request without one with
 * {@code 400}; a key whose caller has no scope gets {@code 403}; all as problem details.
 * A server error is not recorded, so a retry runs again. When Redis cannot be asked the
 * request is not run ({@code 503}).
 */
public class IdempotencyKeyFilter extends OncePerRequestFilter implements Ordered {

	/**
	 * The default order: after Spring Security's filter chain ({@code -100}), so that
	 * keys are scoped to the authenticated user.
	 */
	public static final int DEFAULT_ORDER = 0;

	private static final Log logger = LogFactory.getLog(IdempotencyKeyFilter.class);

	private static final String CLAIM = IdempotencyKeyFilter.class.getName() + ".claim";

	private final IdempotentSteps steps;

	private final HttpIdempotency http;

	private final IdempotencyKeyScopeResolver scopes;

	private final int order;

	/**
	 * Creates the filter, with keys scoped to the authenticated user and refused to
	 * anonymous callers.
	 * @param steps records the responses
	 * @param http the routes and settings
	 * @param order where the filter runs among the application's
	 */
	public IdempotencyKeyFilter(IdempotentSteps steps, HttpIdempotency http, int order) {
		this(steps, http, IdempotencyKeyScopeResolver.principal(), order);
	}

	/**
	 * Creates the filter.
	 * @param steps records the responses
	 * @param http the routes and settings
	 * @param scopes whose key space a request's key falls in
	 * @param order where the filter runs among the application's
	 */
	public IdempotencyKeyFilter(IdempotentSteps steps, HttpIdempotency http, IdempotencyKeyScopeResolver scopes,
			int order) {
		this.steps = steps;
		this.http = http;
		this.scopes = scopes;
		this.order = order;
	}

	@Override
	protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws ServletException, IOException {
		String path = request.getRequestURI().substring(request.getContextPath().length());
		if (isAsyncDispatch(request)) {
			StepClaim claim = (StepClaim) request.getAttribute(CLAIM);
			ContentCachingResponseWrapper captured = WebUtils.getNativeResponse(response,
					ContentCachingResponseWrapper.class);
			if (claim != null && captured != null) {
				finish(request, captured, chain, claim);
			}
			else {
				chain.doFilter(request, response);
			}
			return;
		}
		IdempotencyKeyRoute route = this.http.route(HttpMethod.valueOf(request.getMethod()),
				PathContainer.parsePath(path));
		if (route == null) {
			chain.doFilter(request, response);
			return;
		}
		String value = request.getHeader(this.http.header());
		if (value == null) {
			if (route.required()) {
				write(request, response, this.http.missing());
			}
			else {
				chain.doFilter(request, response);
			}
			return;
		}
		String key;
		try {
			key = this.http.key(value);
		}
		catch (IllegalArgumentException ex) {
			write(request, response, this.http.malformed(String.valueOf(ex.getMessage())));
			return;
		}
		IdempotencyKeyScope scope = this.scopes.resolve(new ServletCaller(request));
		if (scope == null) {
			write(request, response, this.http.unscoped());
			return;
		}
		byte[] body = readBody(request);
		if (body == null) {
			write(request, response, this.http.tooLarge());
			return;
		}
		String operation = this.http.operation(scope.kind(), scope.value(), key);
		StepClaim claim;
		try {
			claim = this.steps.claim(operation, HttpIdempotency.STEP, null, this.http.ttl(), this.http.lease(),
					HttpIdempotency.fingerprint(request.getMethod(), path, request.getQueryString(), body));
		}
		catch (IdempotencyKeyReusedException ex) {
			write(request, response, this.http.reused());
			return;
		}
		catch (DataAccessException ex) {
			write(request, response, this.http.unavailable());
			return;
		}
		switch (claim.outcome()) {
			case CLAIMED -> run(new BodyRequest(request, body), response, chain, claim);
			case DUPLICATE -> replay(response, this.http.read(claim.storedResult()));
			default -> {
				response.setHeader(HttpHeaders.RETRY_AFTER, "1");
				write(request, response, this.http.inProgress());
			}
		}
	}

	private void run(HttpServletRequest request, HttpServletResponse response, FilterChain chain, StepClaim claim)
			throws ServletException, IOException {
		ContentCachingResponseWrapper captured = new ContentCachingResponseWrapper(response);
		request.setAttribute(CLAIM, claim);
		finish(request, captured, chain, claim);
	}

	// runs the request, or its asynchronous dispatch, and once the response is whole
	// records it before the client gets it
	private void finish(HttpServletRequest request, ContentCachingResponseWrapper captured, FilterChain chain,
			StepClaim claim) throws ServletException, IOException {
		boolean decided = false;
		try {
			chain.doFilter(request, captured);
			if (request.isAsyncStarted()) {
				request.getAsyncContext().addListener(new GiveUpOnAsyncFailure(claim));
				decided = true;
				return;
			}
			decided = HttpIdempotency.records(captured.getStatus()) && record(claim, captured);
		}
		finally {
			if (!decided) {
				abandon(claim);
			}
		}
		captured.copyBodyToResponse();
	}

	private boolean record(StepClaim claim, ContentCachingResponseWrapper response) {
		HttpHeaders headers = new HttpHeaders();
		for (String name : response.getHeaderNames()) {
			headers.addAll(name, List.copyOf(response.getHeaders(name)));
		}
		if (response.getContentType() != null) {
			headers.set(HttpHeaders.CONTENT_TYPE, response.getContentType());
		}
		StoredResponse stored = this.http.store(response.getStatus(), headers, response.getContentAsByteArray());
		try {
			this.steps.complete(claim, stored);
			return true;
		}
		catch (StepClaimLostException ex) {
			// the lease ran out and a retry took the key: its response is the one kept
			logger.warn("The response to " + claim.operation() + " was not recorded: " + ex.getMessage());
			return true;
		}
		catch (DataAccessException ex) {
			logger.warn("The response to " + claim.operation() + " could not be recorded; a retry runs it again", ex);
			return false;
		}
	}

	private void abandon(StepClaim claim) {
		try {
			this.steps.abandon(claim);
		}
		catch (RuntimeException ex) {
			// the claim's lease ends it anyway
			logger.debug("Could not abandon " + claim.operation(), ex);
		}
	}

	private static void replay(HttpServletResponse response, StoredResponse stored) throws IOException {
		response.setStatus(stored.status());
		stored.headers().forEach((name, values) -> values.forEach((value) -> response.addHeader(name, value)));
		response.setHeader(HttpIdempotency.REPLAYED, "true");
		response.setContentLength(stored.body().length);
		response.getOutputStream().write(stored.body());
	}

	// null when larger than what is fingerprinted
	private byte @Nullable [] readBody(HttpServletRequest request) throws IOException {
		long limit = this.http.maxRequestSize();
		if (request.getContentLengthLong() > limit) {
			return null;
		}
		try (InputStream in = request.getInputStream()) {
			byte[] body = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, limit + 1));
			return (body.length > limit) ? null : body;
		}
	}

	private void write(HttpServletRequest request, HttpServletResponse response, ProblemDetail problem)
			throws IOException {
		response.setStatus(problem.getStatus());
		response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
		response.getOutputStream().write(this.http.json(problem, request.getRequestURI()));
	}

	// the asynchronous dispatch finishes the request: it must see the claim
	@Override
	protected boolean shouldNotFilterAsyncDispatch() {
		return false;
	}

	@Override
	public int getOrder() {
		return this.order;
	}

	/**
	 * Gives the key up when an asynchronous request fails or times out, so that a retry
	 * runs it again; its completion is recorded by the asynchronous dispatch.
	 */
	private final class GiveUpOnAsyncFailure implements AsyncListener {

		private final StepClaim claim;

		GiveUpOnAsyncFailure(StepClaim claim) {
			this.claim = claim;
		}

		@Override
		public void onComplete(AsyncEvent event) {
		}

		@Override
		public void onTimeout(AsyncEvent event) {
			abandon(this.claim);
		}

		@Override
		public void onError(AsyncEvent event) {
			abandon(this.claim);
		}

		@Override
		public void onStartAsync(AsyncEvent event) {
		}

	}

	/**
	 * The request with the body the filter read to fingerprint it.
	 */
	private static final class BodyRequest extends HttpServletRequestWrapper {

		private final byte[] body;

		BodyRequest(HttpServletRequest request, byte[] body) {
			super(request);
			this.body = body;
		}

		@Override
		public ServletInputStream getInputStream() {
			ByteArrayInputStream in = new ByteArrayInputStream(this.body);
			return new ServletInputStream() {

				@Override
				public int read() {
					return in.read();
				}

				@Override
				public int read(byte[] buffer, int offset, int length) {
					return in.read(buffer, offset, length);
				}

				@Override
				public boolean isFinished() {
					return in.available() == 0;
				}

				@Override
				public boolean isReady() {
					return true;
				}

				@Override
				public void setReadListener(ReadListener listener) {
					throw new UnsupportedOperationException("The body was already read");
				}

			};
		}

		@Override
		public BufferedReader getReader() {
			String encoding = getCharacterEncoding();
			return new BufferedReader(new InputStreamReader(getInputStream(),
					(encoding != null) ? Charset.forName(encoding) : StandardCharsets.UTF_8));
		}

		@Override
		public int getContentLength() {
			return this.body.length;
		}

		@Override
		public long getContentLengthLong() {
			return this.body.length;
		}

	}

}
