package io.github.redkit.core.internal;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Holds something (a permit, a lock) around a publisher: it is taken on subscription and
 * given back when the publisher completes, fails or is cancelled. On completion the
 * give-back is part of the publisher, so that a {@code Mono}'s value and a {@code Flux}'s
 * completion reach the subscriber once it is answered: a call made on receiving them
 * finds the place free. A give-back that fails is logged and the publisher's outcome
 * stands; one that answers an error (what was held was lost meanwhile) ends a completed
 * publisher with it. The shared path of every annotation that holds something around a
 * reactive call.
 */
public final class ReactiveHold {

	private static final Log logger = LogFactory.getLog(ReactiveHold.class);

	private ReactiveHold() {
	}

	/**
	 * Holds around a publisher of many values: they pass as they come, the completion
	 * once the give-back is answered.
	 * @param <H> what is held
	 * @param <T> the values
	 * @param taken takes it on subscription; a refusal is an error
	 * @param body the publisher run while it is held
	 * @param giveBack gives it back
	 * @return the held publisher
	 */
	public static <H, T> Flux<T> many(Mono<H> taken, Function<H, ? extends Publisher<T>> body, GiveBack<H> giveBack) {
		return Flux.usingWhen(taken.map((held) -> new Hold<>(held, giveBack)),
				(hold) -> Flux.<T>from(body.apply(hold.held)).concatWith(hold.giveBack(true).then(Mono.empty())),
				(hold) -> Mono.empty(), (hold, error) -> hold.giveBack(false), (hold) -> hold.giveBack(false));
	}

	/**
	 * Holds around a publisher of at most one value, which reaches the subscriber once
	 * the give-back is answered.
	 * @param <H> what is held
	 * @param <T> the value
	 * @param taken takes it on subscription; a refusal is an error
	 * @param body the publisher run while it is held; a value after the first cancels it
	 * @param giveBack gives it back
	 * @return the held publisher
	 */
	public static <H, T> Mono<T> one(Mono<H> taken, Function<H, ? extends Publisher<T>> body, GiveBack<H> giveBack) {
		// the value waits inside the hold: cut to its first value from outside (Mono.from
		// of a Flux), the hold would be cancelled and the value handed over while the
		// give-back is still on its way
		return Mono.usingWhen(taken.map((held) -> new Hold<>(held, giveBack)),
				(hold) -> Flux.<T>from(body.apply(hold.held))
					.next()
					.map(Optional::of)
					.defaultIfEmpty(Optional.empty())
					.flatMap((value) -> hold.giveBack(true).then(Mono.justOrEmpty(value))),
				(hold) -> Mono.empty(), (hold, error) -> hold.giveBack(false), (hold) -> hold.giveBack(false));
	}

	/**
	 * Gives back what was held.
	 *
	 * @param <H> what is held
	 */
	@FunctionalInterface
	public interface GiveBack<H> {

		/**
		 * Gives it back.
		 * @param held what was held
		 * @return the error a completed publisher must end with instead (what was held
		 * was lost meanwhile), or empty; completed exceptionally when the give-back
		 * failed, which is logged
		 */
		CompletableFuture<Optional<Throwable>> giveBack(H held);

	}

	/**
	 * One hold, given back once: on completion, or on an error or a cancel that comes
	 * while (or after) it is given back.
	 */
	private static final class Hold<H> {

		private final H held;

		private final GiveBack<H> giveBack;

		private final AtomicBoolean given = new AtomicBoolean();

		Hold(H held, GiveBack<H> giveBack) {
			this.held = held;
			this.giveBack = giveBack;
		}

		Mono<Void> giveBack(boolean endsThePublisher) {
			return Mono.defer(() -> {
				if (!this.given.compareAndSet(false, true)) {
					return Mono.empty();
				}
				CompletableFuture<Optional<Throwable>> answer;
				try {
					answer = this.giveBack.giveBack(this.held);
				}
				catch (RuntimeException ex) {
					answer = CompletableFuture.failedFuture(ex);
				}
				// not cancelled with the subscription: a give-back under way goes on
				return Mono.fromFuture(answer, true).onErrorResume((ex) -> {
					// the call's outcome is what its caller waits for: failing it would
					// hide it, and would not take back what the call did
					logger.warn("Could not give back what a reactive call held; the call's outcome stands",
							RedisScriptRunner.unwrap(ex));
					return Mono.empty();
				})
					.flatMap((lost) -> (endsThePublisher && lost.isPresent()) ? Mono.<Void>error(lost.get())
							: Mono.<Void>empty());
			});
		}

	}

}
