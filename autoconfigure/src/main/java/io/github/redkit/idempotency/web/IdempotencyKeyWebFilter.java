package io.github.redkit.idempotency.web;

import java.security.Principal;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

import io.github.redkit.idempotency.IdempotencyKeyReusedException;
import io.github.redkit.idempotency.ReactiveIdempotentSteps;
import io.github.redkit.idempotency.StepClaim;
import io.github.redkit.idempotency.internal.HttpIdempotency;
import io.github.redkit.idempotency.internal.IdempotencyKeyRoute;
import io.github.redkit.idempotency.internal.StoredResponse;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Signal;

import org.springframework.core.Ordered;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.dao.DataAccessException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.util.LinkedMultiValueMap;
import org.springframework.util.MultiValueMap;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.ServerWebExchangeDecorator;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;

/**
 * Answers each {@code Idempotency-Key} once on WebFlux routes, as
 * {@link IdempotencyKeyFilter} does on Spring MVC and on the same records: the first
 * request runs and its response is recorded before it is written; a retry gets it back
 * ({@code Idempotent-Replayed: true}); a retry while the first runs gets {@code 409}, the
 * key with another request {@code 422}, a request without a required key {@code 400}. A
 * client that goes away does not stop its request: its response is recorded, or the
 * status of the error it ends with when that is one a retry would get; any other error
 * gives the key up.
 */
public class IdempotencyKeyWebFilter implements WebFilter, Ordered {

	private static final Log logger = LogFactory.getLog(IdempotencyKeyWebFilter.class);

	private final ReactiveIdempotentSteps steps;

	private final HttpIdempotency http;

	private final IdempotencyKeyScopeResolver scopes;

	private final int order;

	/**
	 * Creates the filter, with keys scoped to the authenticated user and refused to
	 * anonymous callers.
	 * @param steps records the responses
	 * @param http the routes and settings
	 * @param order where the filter runs among the application's,
	 * {@link IdempotencyKeyFilter#DEFAULT_ORDER} by default
	 */
	public IdempotencyKeyWebFilter(ReactiveIdempotentSteps steps, HttpIdempotency http, int order) {
		this(steps, http, IdempotencyKeyScopeResolver.principal(), order);
	}

	/**
	 * Creates the filter.
	 * @param steps records the responses
	 * @param http the routes and settings
	 * @param scopes whose key space a request's key falls in
	 * @param order where the filter runs among the application's,
	 * {@link IdempotencyKeyFilter#DEFAULT_ORDER} by default
	 */
	public IdempotencyKeyWebFilter(ReactiveIdempotentSteps steps, HttpIdempotency http,
			IdempotencyKeyScopeResolver scopes, int order) {
		this.steps = steps;
		this.http = http;
		this.scopes = scopes;
		this.order = order;
	}

	@Override
	public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
		ServerHttpRequest request = exchange.getRequest();
		IdempotencyKeyRoute route = this.http.route(request.getMethod(), request.getPath().pathWithinApplication());
		if (route == null) {
			return chain.filter(exchange);
		}
		String value = request.getHeaders().getFirst(this.http.header());
		if (value == null) {
			return route.required() ? write(exchange, this.http.missing()) : chain.filter(exchange);
		}
		String key;
		try {
			key = this.http.key(value);
		}
		catch (IllegalArgumentException ex) {
			return write(exchange, this.http.malformed(String.valueOf(ex.getMessage())));
		}
		// told of a client that goes away here, on the outermost stage, above every stage
		// of ours: the server's cancel may come down after the handler's error went up,
		// and an operator that resumes an error with another publisher sends a later
		// cancel there, never to the stages beneath it (an onErrorResume over the claim
		// did, 9171b95). A cancel that comes before the claim's stage is subscribed
		// cancels the body's read or the principal; one that comes while they emit
		// anyway still finds the departure noted when the claim is made (Departure.watch)
		Departure departure = new Departure();
		// past max-request-size is the read's own error, answered before anything is
		// claimed; the same error from the handler is the handler's, as any other
		return body(exchange)
			.map((body) -> exchange.getPrincipal()
				.map((principal) -> Optional.<Principal>of(principal))
				.defaultIfEmpty(Optional.empty())
				.flatMap((principal) -> claim(exchange, chain, body, principal.orElse(null), key, departure)))
			.onErrorResume(DataBufferLimitException.class, (ex) -> Mono.just(write(exchange, this.http.tooLarge())))
			.flatMap(Function.identity())
			.doOnCancel(departure::leave);
	}

	// the body is read from the connection here, at most max-request-size of it, and kept
	// for the handler; a form is fingerprinted from its fields as parsed, so that the
	// fingerprint does not depend on who read it first: a filter in front that read it
	// (Spring Security's CSRF filter, HiddenHttpMethodFilter) left the connection's body
	// read, and its fields are then the exchange's own
	private Mono<RequestBody> body(ServerWebExchange exchange) {
		Mono<byte[]> read = DataBufferUtils
			.join(exchange.getRequest().getBody(), (int) Math.min(Integer.MAX_VALUE, this.http.maxRequestSize()))
			.map(IdempotencyKeyWebFilter::bytes)
			.defaultIfEmpty(new byte[0]);
		if (!isForm(exchange.getRequest())) {
			return read.map((bytes) -> new RequestBody(
					MultipartBoundary.withoutBoundary(exchange.getRequest().getHeaders(), bytes), bytes, null));
		}
		// a servlet container refuses a body read a second time: a filter in front read
		// the form, whose fields are the exchange's own
		return read.map(Optional::of)
			.onErrorResume(IdempotencyKeyWebFilter::isReadBefore, (ex) -> Mono.just(Optional.empty()))
			.flatMap((bytes) -> bytes.isPresent() ? form(exchange, bytes.get())
					: exchange.getFormData().map((form) -> new RequestBody(FormFingerprint.bytes(form), null, null)));
	}

	private static Mono<RequestBody> form(ServerWebExchange exchange, byte[] bytes) {
		if (bytes.length > 0) {
			return ReadBodyExchange.readForm(exchange, bytes)
				.map((form) -> new RequestBody(FormFingerprint.bytes(form), bytes, form));
		}
		// an empty read: reactor-netty's read of a body a filter in front already read,
		// whose fields are the exchange's own, or an empty body, which the exchange's
		// own form would read a second time (a servlet container refuses that: the form
		// is empty). The handler gets this form and an empty body it can read, never the
		// connection's
		return exchange.getFormData()
			.onErrorResume(IdempotencyKeyWebFilter::isReadBefore, (ex) -> Mono.just(new LinkedMultiValueMap<>()))
			.map((form) -> new RequestBody(FormFingerprint.bytes(form), bytes, form));
	}

	private static boolean isReadBefore(Throwable ex) {
		return ex instanceof IllegalStateException && !(ex instanceof DataBufferLimitException);
	}

	private static boolean isForm(ServerHttpRequest request) {
		try {
			MediaType type = request.getHeaders().getContentType();
			return type != null && MediaType.APPLICATION_FORM_URLENCODED.isCompatibleWith(type);
		}
		catch (RuntimeException ex) {
			// an unreadable Content-Type: the body as it came
			return false;
		}
	}

	private Mono<Void> claim(ServerWebExchange exchange, WebFilterChain chain, RequestBody body,
			@Nullable Principal principal, String key, Departure departure) {
		IdempotencyKeyScope scope = this.scopes.resolve(new ExchangeCaller(exchange, principal));
		if (scope == null) {
			return write(exchange, this.http.unscoped());
		}
		ServerHttpRequest request = exchange.getRequest();
		String path = request.getPath().pathWithinApplication().value();
		String fingerprint = HttpIdempotency.fingerprint(request.getMethod().name(), path,
				request.getURI().getRawQuery(), body.fingerprinted());
		Mono<Void> answered = this.steps
			.claim(this.http.operation(scope.kind(), scope.value(), key), HttpIdempotency.STEP, null, this.http.ttl(),
					this.http.lease(), fingerprint)
			.cast(Object.class)
			.onErrorResume(IdempotencyKeyReusedException.class, (ex) -> Mono.just(this.http.reused()))
			.onErrorResume(DataAccessException.class, (ex) -> Mono.just(this.http.unavailable()))
			.flatMap((answer) -> {
				if (answer instanceof ProblemDetail problem) {
					return write(exchange, problem);
				}
				StepClaim claim = (StepClaim) answer;
				return switch (claim.outcome()) {
					case CLAIMED -> run(exchange, chain, body, claim, departure);
					case DUPLICATE -> replay(exchange, this.http.read(claim.storedResult()));
					default -> {
						exchange.getResponse().getHeaders().set(HttpHeaders.RETRY_AFTER, "1");
						yield write(exchange, this.http.inProgress());
					}
				};
			});
		// a client that goes away does not cancel the request, from its claim on (a claim
		// whose reply was cancelled would hold the key until its lease with nothing
		// running): as on Tomcat, it runs to its end and its response is recorded, so
		// that the retry gets that response rather than running the request again after
		// its side effects; an error it ends with is then never answered, and the
		// recorder
		// decides it without the error handling. Such an error (the handler's own, or
		// Netty's AbortedException on writing to the closed connection) comes after the
		// cancel, with no one to take it: a future failing then is dropped by Reactor at
		// ERROR (onErrorDropped), once per client gone. It travels as a value instead,
		// which a cancelled Mono discards quietly; the recorder has already decided the
		// key for it
		Mono<Signal<Void>> ended = answered.doOnError(departure::ended).materialize();
		return Mono.deferContextual((context) -> Mono.fromFuture(ended.contextWrite(context).toFuture(), true))
			.dematerialize();
	}

	private Mono<Void> run(ServerWebExchange exchange, WebFilterChain chain, RequestBody body, StepClaim claim,
			Departure departure) {
		ResponseRecorder response = new ResponseRecorder(exchange.getResponse(), this.steps, this.http, claim);
		departure.watch(response);
		byte[] bytes = body.bytes();
		ServerWebExchange claimed = (bytes != null) ? new ReadBodyExchange(exchange, bytes, body.form(), response)
				: new RecordedExchange(exchange, response);
		// a response nothing was written to is completed by Spring after the chain, and
		// an error is answered by the error handling around it: neither passes through
		// the recorder
		Mono<Void> handled = chain.filter(claimed)
			.then(Mono.defer(response::ended))
			.onErrorResume((ex) -> response.failed(exchange.getResponse(), ex).then(Mono.error(ex)));
		return Flux.concatDelayError(handled, claimed.cleanupMultipart().onErrorComplete()).then();
	}

	private Mono<Void> replay(ServerWebExchange exchange, StoredResponse stored) {
		if (stored.bodyOmitted()) {
			return write(exchange, this.http.notReplayable());
		}
		ServerHttpResponse response = exchange.getResponse();
		response.setStatusCode(HttpStatusCode.valueOf(stored.status()));
		stored.headers().forEach((name, values) -> response.getHeaders().put(name, values));
		response.getHeaders().set(HttpIdempotency.REPLAYED, "true");
		return response.writeWith(Mono.fromSupplier(() -> response.bufferFactory().wrap(stored.body())));
	}

	private Mono<Void> write(ServerWebExchange exchange, ProblemDetail problem) {
		ServerHttpResponse response = exchange.getResponse();
		response.setStatusCode(HttpStatus.valueOf(problem.getStatus()));
		response.getHeaders().setContentType(MediaType.APPLICATION_PROBLEM_JSON);
		byte[] json = this.http.json(problem, exchange.getRequest().getPath().value());
		return response.writeWith(Mono.fromSupplier(() -> response.bufferFactory().wrap(json)));
	}

	private static byte[] bytes(DataBuffer buffer) {
		try {
			byte[] bytes = new byte[buffer.readableByteCount()];
			buffer.read(bytes);
			return bytes;
		}
		finally {
			DataBufferUtils.release(buffer);
		}
	}

	@Override
	public int getOrder() {
		return this.order;
	}

	/**
	 * The request's body as the fingerprint reads it and as the handler gets it.
	 *
	 * @param fingerprinted what the fingerprint reads: the body without a multipart
	 * boundary, or a form's fields
	 * @param bytes the body as read from the connection, {@code null} when a servlet
	 * container refused the read because a filter in front read the body as a form
	 * @param form the form parsed from those bytes, when the body is one
	 */
	private record RequestBody(byte[] fingerprinted, byte @Nullable [] bytes,
			@Nullable MultiValueMap<String, String> form) {

	}

	/**
	 * Tells the recorder of a claimed request that its client went away, whether it went
	 * before the request ran or while it ran.
	 */
	private static final class Departure {

		private static final Object GONE = new Object();

		private final AtomicReference<@Nullable Object> state = new AtomicReference<>();

		void leave() {
			if (this.state.getAndSet(GONE) instanceof ResponseRecorder recorder) {
				recorder.clientGone().subscribe();
			}
		}

		void watch(ResponseRecorder recorder) {
			if (!this.state.compareAndSet(null, recorder)) {
				recorder.clientGone().subscribe();
			}
		}

		// a client gone is no server error: its request's end is noted at DEBUG
		void ended(Throwable ex) {
			if (this.state.get() == GONE && logger.isDebugEnabled()) {
				logger.debug("A request ended after its client left: " + ex);
			}
		}

	}

	/**
	 * The exchange of a claimed form a filter in front read: its form data is the
	 * exchange's own, the response recorded.
	 */
	private static final class RecordedExchange extends ServerWebExchangeDecorator {

		private final ServerHttpResponse response;

		RecordedExchange(ServerWebExchange exchange, ServerHttpResponse response) {
			super(exchange);
			this.response = response;
		}

		@Override
		public ServerHttpResponse getResponse() {
			return this.response;
		}

	}

}
