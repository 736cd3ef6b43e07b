package io.github.redkit.idempotency.web;

import java.io.IOException;
import java.io.InputStream;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.TreeMap;

import io.github.redkit.idempotency.IdempotencyKeyReusedException;
import io.github.redkit.idempotency.IdempotentSteps;
import io.github.redkit.idempotency.StepClaim;
import io.github.redkit.idempotency.StepClaimLostException;
import io.github.redkit.idempotency.internal.HttpIdempotency;
import io.github.redkit.idempotency.internal.IdempotencyKeyRoute;
import io.github.redkit.idempotency.internal.ReceivedForm;
import io.github.redkit.idempotency.internal.StoredResponse;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.Part;
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
import org.springframework.web.util.WebUtils;

/**
 * Answers each {@code Idempotency-Key} once on Spring MVC routes
 * (draft-ietf-httpapi-idempotency-key-header): the first request with a key runs and its
 * response (status, the headers the application set, body) is recorded; a retry of the
 * same request gets the recorded response, marked {@code Idempotent-Replayed: true}; a
 * retry while the first still runs gets {@code 409}; the key with another method, path or
 * body (or form) gets {@code 422}; a route that requires a key answers a request without
 * one with {@code 400}; a key whose caller has no scope gets {@code 403}; a retry of a
 * response that streamed (an event stream, a streaming body, a body past
 * {@code max-response-size}) gets {@code 410}; all as problem details. A server error is
 * not recorded, so a retry runs again. When Redis cannot be asked the request is not run
 * ({@code 503}).
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
			RecordingResponse captured = WebUtils.getNativeResponse(response, RecordingResponse.class);
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
		if (request.getContentLengthLong() > this.http.maxRequestSize()) {
			write(request, response, this.http.tooLarge());
			return;
		}
		ReceivedForm form = form(request);
		byte[] body = readBody(request, (form != null) ? form.size() : 0);
		if (body == null) {
			write(request, response, this.http.tooLarge());
			return;
		}
		StepClaim claim;
		try {
			claim = this.steps.claim(this.http.operation(scope.kind(), scope.value(), key), HttpIdempotency.STEP, null,
					this.http.ttl(), this.http.lease(),
					HttpIdempotency.fingerprint(request.getMethod(), path, request.getQueryString(), body, form));
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
			case CLAIMED -> run((form == null || body.length > 0) ? new BodyRequest(request, body) : request, response,
					chain, claim);
			case DUPLICATE -> replay(request, response, this.http.read(claim.storedResult()));
			default -> {
				response.setHeader(HttpHeaders.RETRY_AFTER, "1");
				write(request, response, this.http.inProgress());
			}
		}
	}

	private void run(HttpServletRequest request, HttpServletResponse response, FilterChain chain, StepClaim claim)
			throws ServletException, IOException {
		RecordingResponse captured = new RecordingResponse(response, request, this.http.maxResponseSize());
		request.setAttribute(CLAIM, claim);
		finish(request, captured, chain, claim);
	}

	// runs the request, or its asynchronous dispatch, and once the response is whole
	// records it before the client gets what was held of it
	private void finish(HttpServletRequest request, RecordingResponse captured, FilterChain chain, StepClaim claim)
			throws ServletException, IOException {
		boolean decided = false;
		try {
			chain.doFilter(request, captured);
			if (request.isAsyncStarted()) {
				request.getAsyncContext().addListener(new GiveUpOnAsyncFailure(claim));
				decided = true;
				return;
			}
			captured.flushWriter();
			decided = HttpIdempotency.records(captured.getStatus()) && record(claim, captured);
		}
		finally {
			if (!decided) {
				abandon(claim);
			}
		}
		captured.sendHeld();
	}

	private boolean record(StepClaim claim, RecordingResponse response) {
		StoredResponse stored = response.streamed() ? this.http.notReplayable(response.getStatus(), response.produced())
				: this.http.store(response.getStatus(), response.produced(), response.body());
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

	// the filters in front set their headers on this response as on the first: a value
	// they set is not repeated
	private void replay(HttpServletRequest request, HttpServletResponse response, StoredResponse stored)
			throws IOException {
		if (stored.bodyOmitted()) {
			write(request, response, this.http.notReplayable());
			return;
		}
		response.setStatus(stored.status());
		stored.headers().forEach((name, values) -> {
			for (String value : values) {
				if (!response.getHeaders(name).contains(value)) {
					response.addHeader(name, value);
				}
			}
		});
		response.setHeader(HttpIdempotency.REPLAYED, "true");
		response.setContentLength(stored.body().length);
		response.getOutputStream().write(stored.body());
	}

	// the parameters and parts the application gets of a form: a server or a filter in
	// front (Spring Security's CSRF filter, Boot's form content filter) may have read
	// its body already; null when the request is not a form
	private @Nullable ReceivedForm form(HttpServletRequest request) throws IOException {
		String type = request.getContentType();
		String lower = (type != null) ? type.toLowerCase(Locale.ROOT) : "";
		boolean multipart = lower.startsWith(MediaType.MULTIPART_FORM_DATA_VALUE);
		if (!multipart && !lower.startsWith(MediaType.APPLICATION_FORM_URLENCODED_VALUE)) {
			return null;
		}
		ReceivedForm form = new ReceivedForm();
		new TreeMap<>(request.getParameterMap()).forEach((name, values) -> form.parameter(name, List.of(values)));
		if (multipart) {
			for (Part part : parts(request)) {
				try (InputStream content = part.getInputStream()) {
					form.part(part.getName(), part.getSubmittedFileName(), part.getContentType(), content);
				}
			}
		}
		return form;
	}

	// a multipart body the server cannot read is left to the application, which fails
	// on it alike
	private static Collection<Part> parts(HttpServletRequest request) {
		try {
			return request.getParts();
		}
		catch (IOException | ServletException | IllegalStateException ex) {
			return List.of();
		}
	}

	// what is left of the body once the form was read; null when larger than what is
	// fingerprinted
	private byte @Nullable [] readBody(HttpServletRequest request, long read) throws IOException {
		long limit = this.http.maxRequestSize() - read;
		if (limit < 0) {
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

}
