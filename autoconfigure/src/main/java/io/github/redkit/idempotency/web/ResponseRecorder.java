package io.github.redkit.idempotency.web;

import java.util.Collection;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import io.github.redkit.idempotency.ReactiveIdempotentSteps;
import io.github.redkit.idempotency.StepClaim;
import io.github.redkit.idempotency.StepClaimLostException;
import io.github.redkit.idempotency.internal.HttpIdempotency;
import io.github.redkit.idempotency.internal.StoredResponse;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.dao.DataAccessException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.http.server.reactive.ServerHttpResponseDecorator;
import org.springframework.web.ErrorResponse;
import org.springframework.web.bind.annotation.ResponseStatus;

/**
 * The response to a claimed request, recorded (or its key given up) before the client
 * gets any of it: a body up to {@code max-response-size} is gathered and recorded with
 * it; a larger one, or a stream ({@code text/event-stream}, {@code application/x-ndjson},
 * anything written with flushes), is recorded as not replayable before its first byte and
 * then passes through, never held.
 */
final class ResponseRecorder extends ServerHttpResponseDecorator {

	private static final Log logger = LogFactory.getLog(ResponseRecorder.class);

	private final ReactiveIdempotentSteps steps;

	private final HttpIdempotency http;

	private final StepClaim claim;

	private final AtomicBoolean decided = new AtomicBoolean();

	// the status of the error the handling ended with: UNKNOWN when the error does not
	// say, NONE before any
	private volatile int failure = NONE;

	// the headers its answer would have had: set before failure
	private volatile HttpHeaders failureHeaders = new HttpHeaders();

	private volatile boolean clientGone;

	private static final int NONE = -1;

	private static final int UNKNOWN = 0;

	ResponseRecorder(ServerHttpResponse response, ReactiveIdempotentSteps steps, HttpIdempotency http,
			StepClaim claim) {
		super(response);
		this.steps = steps;
		this.http = http;
		this.claim = claim;
	}

	@Override
	public Mono<Void> writeWith(Publisher<? extends DataBuffer> body) {
		if (this.decided.get()) {
			return super.writeWith(body);
		}
		if (isStream(getHeaders().getContentType())) {
			return decideNotReplayable().then(super.writeWith(body));
		}
		long limit = this.http.maxResponseSize();
		AtomicLong size = new AtomicLong();
		AtomicBoolean first = new AtomicBoolean(true);
		// the buffers up to the one that passes the limit come as one list, or the whole
		// body when it stays within it; each later buffer then comes alone
		Flux<DataBuffer> recorded = Flux.<DataBuffer>from(body)
			.bufferUntil((buffer) -> size.addAndGet(buffer.readableByteCount()) > limit)
			.concatMap((buffers) -> {
				if (!first.getAndSet(false)) {
					return Flux.fromIterable(buffers);
				}
				if (size.get() > limit) {
					return decideNotReplayable().thenMany(Flux.fromIterable(buffers));
				}
				byte[] bytes = bytes(buffers);
				return decide(bytes).thenMany(Mono.fromSupplier(() -> bufferFactory().wrap(bytes)));
			})
			.switchIfEmpty(Flux.defer(() -> decide(new byte[0]).thenMany(Flux.<DataBuffer>empty())))
			.doOnDiscard(Object.class, ResponseRecorder::release);
		return super.writeWith(recorded);
	}

	@Override
	public Mono<Void> writeAndFlushWith(Publisher<? extends Publisher<? extends DataBuffer>> body) {
		// written as it comes: a stream, whatever its content type
		return decideNotReplayable().then(super.writeAndFlushWith(body));
	}

	@Override
	public Mono<Void> setComplete() {
		return decide(new byte[0]).then(super.setComplete());
	}

	/**
	 * Records the response as it stands when the application's handling ended without
	 * writing to it ({@code Mono<Void>}, {@code @ResponseStatus}): Spring completes it
	 * afterwards, on the response it holds, out of this decorator's sight.
	 * @return completes once recorded
	 */
	Mono<Void> ended() {
		return decide(new byte[0]);
	}

	/**
	 * Records the answer to an error that leaves the filter chain once the error handling
	 * (a {@code WebExceptionHandler}, Spring Security's filters) commits it on the
	 * response it holds: its status and headers, without the body this decorator does not
	 * see. Gives the key up when that response was already committed. When the client is
	 * gone the error reaches no error handling and nothing is committed: an error whose
	 * answer is recorded (an {@link ErrorResponse} or a {@link ResponseStatus} exception
	 * with such a status) is recorded with its own status and headers, any other gives
	 * the key up.
	 * @param answering the response the error handling writes
	 * @param error what the handling ended with
	 * @return completes once the recording is arranged
	 */
	Mono<Void> failed(ServerHttpResponse answering, Throwable error) {
		if (this.decided.get()) {
			return Mono.empty();
		}
		if (answering.isCommitted()) {
			return giveUp();
		}
		HttpHeaders headers = withoutContent(answering.getHeaders());
		if (error instanceof ErrorResponse response) {
			headers.addAll(response.getHeaders());
		}
		this.failureHeaders = headers;
		this.failure = status(error);
		if (this.clientGone) {
			return unanswered(this.failure);
		}
		answering.beforeCommit(
				() -> decide(answering.getStatusCode(), withoutContent(answering.getHeaders()), new byte[0], false));
		return Mono.empty();
	}

	/**
	 * Notes that the client went away: an error the handling ended with, or ends with
	 * later, is never answered, so it is recorded or its key given up here.
	 * @return completes once the error is recorded or the key given up, when there is one
	 */
	Mono<Void> clientGone() {
		this.clientGone = true;
		int failure = this.failure;
		return (failure != NONE) ? unanswered(failure) : Mono.empty();
	}

	// an error nobody answers: recorded as the error handling would have answered it
	private Mono<Void> unanswered(int failure) {
		return notRecorded(failure) ? giveUp()
				: decide(HttpStatusCode.valueOf(failure), this.failureHeaders, new byte[0], false);
	}

	private static int status(Throwable error) {
		if (error instanceof ErrorResponse response) {
			return response.getStatusCode().value();
		}
		ResponseStatus status = AnnotatedElementUtils.findMergedAnnotation(error.getClass(), ResponseStatus.class);
		return (status != null) ? status.code().value() : UNKNOWN;
	}

	private static boolean notRecorded(int status) {
		return status == UNKNOWN || !HttpIdempotency.records(status);
	}

	Mono<Void> giveUp() {
		return this.decided.compareAndSet(false, true) ? toTheEnd(abandon()) : Mono.empty();
	}

	/**
	 * Runs a decided key's write to Redis to its end even when what awaits it is
	 * cancelled: the error handling's commit, which a client that leaves cancels, would
	 * otherwise stop it half-way, and the key, already decided, would stay claimed until
	 * its lease.
	 */
	private static Mono<Void> toTheEnd(Mono<Void> write) {
		return Mono.deferContextual((context) -> Mono.fromFuture(write.contextWrite(context).toFuture(), true));
	}

	private Mono<Void> decide(byte[] body) {
		return decide(getStatusCode(), getHeaders(), body, false);
	}

	private Mono<Void> decideNotReplayable() {
		return decide(getStatusCode(), getHeaders(), new byte[0], true);
	}

	private Mono<Void> decide(@Nullable HttpStatusCode status, HttpHeaders headers, byte[] body,
			boolean notReplayable) {
		if (!this.decided.compareAndSet(false, true)) {
			return Mono.empty();
		}
		int code = (status != null) ? status.value() : 200;
		if (!HttpIdempotency.records(code)) {
			return toTheEnd(abandon());
		}
		StoredResponse stored = notReplayable ? this.http.notReplayable(code, headers)
				: this.http.store(code, headers, body);
		return toTheEnd(this.steps.complete(this.claim, stored).onErrorResume(StepClaimLostException.class, (ex) -> {
			// the lease ran out and a retry took the key: its response is the one kept
			logger.warn("The response to " + this.claim.operation() + " was not recorded: " + ex.getMessage());
			return Mono.empty();
		}).onErrorResume((ex) -> {
			logger.warn("The response to " + this.claim.operation() + " could not be recorded; a retry runs it again",
					ex);
			return abandon();
		}));
	}

	private Mono<Void> abandon() {
		return this.steps.abandon(this.claim).onErrorResume((ex) -> {
			// the claim's lease ends it anyway
			logger.debug("Could not abandon " + this.claim.operation(), ex);
			return Mono.empty();
		});
	}

	private static boolean isStream(@Nullable MediaType type) {
		return type != null && (MediaType.TEXT_EVENT_STREAM.isCompatibleWith(type)
				|| MediaType.APPLICATION_NDJSON.isCompatibleWith(type));
	}

	// the headers of a body that is not recorded: a replay has none
	private static HttpHeaders withoutContent(HttpHeaders headers) {
		HttpHeaders kept = new HttpHeaders();
		headers.forEach((name, values) -> {
			if (!name.regionMatches(true, 0, "Content-", 0, 8)) {
				kept.addAll(name, values);
			}
		});
		return kept;
	}

	// what a cancelled body leaves behind: buffers, and the lists of them gathered so far
	private static void release(Object discarded) {
		if (discarded instanceof DataBuffer buffer) {
			DataBufferUtils.release(buffer);
		}
		else if (discarded instanceof Collection<?> buffers) {
			buffers.forEach(ResponseRecorder::release);
		}
	}

	private static byte[] bytes(List<DataBuffer> buffers) {
		int size = 0;
		for (DataBuffer buffer : buffers) {
			size += buffer.readableByteCount();
		}
		byte[] bytes = new byte[size];
		int offset = 0;
		for (DataBuffer buffer : buffers) {
			int count = buffer.readableByteCount();
			buffer.read(bytes, offset, count);
			offset += count;
			DataBufferUtils.release(buffer);
		}
		return bytes;
	}

}
