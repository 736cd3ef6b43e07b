package io.github.redkit.core.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import reactor.core.publisher.Mono;

/**
 * Takes something in Redis on subscription (a permit, a step claim, a reservation) so
 * that a subscriber that cancels while the script is in flight leaves nothing held: Redis
 * runs the script anyway, and what it grants is given back as soon as it answers. A
 * refusal or a failure that answers after the cancel reaches nobody and is dropped
 * quietly (logged at DEBUG), not handed to Reactor's {@code onErrorDropped}, whose
 * default logs it at ERROR.
 */
public final class ReactiveAcquire {

	private static final Log logger = LogFactory.getLog(ReactiveAcquire.class);

	private ReactiveAcquire() {
	}

	/**
	 * The acquisition as a {@code Mono}: sent on subscription, emitted to a subscriber
	 * that still waits, given back otherwise.
	 * @param <T> what is taken
	 * @param acquire sends the script
	 * @param giveBack gives back what a cancelled subscriber would never hold
	 * @return what was taken
	 */
	public static <T> Mono<T> of(Supplier<? extends CompletableFuture<T>> acquire, Consumer<? super T> giveBack) {
		return Mono.defer(() -> {
			CompletableFuture<T> acquiring = acquire.get();
			// settled once: by the answer reaching the subscriber, or by the cancel
			AtomicBoolean settled = new AtomicBoolean();
			// a failure settles it too: one that comes after the cancel is not emitted
			CompletableFuture<T> answer = acquiring.exceptionallyCompose(
					(ex) -> settled.compareAndSet(false, true) ? CompletableFuture.failedFuture(ex) : dropped(ex));
			// not cancelled with the subscription: its answer says what to give back
			return Mono.fromFuture(answer, true).doOnCancel(() -> {
				if (settled.compareAndSet(false, true)) {
					acquiring.thenAccept(giveBack);
				}
			}).filter((acquired) -> settled.compareAndSet(false, true));
		});
	}

	/**
	 * An answer that nobody waits for any more: never emitted.
	 */
	private static <T> CompletableFuture<T> dropped(Throwable ex) {
		if (logger.isDebugEnabled()) {
			logger.debug("Dropped the failure of an acquisition whose subscriber had cancelled: "
					+ RedisScriptRunner.unwrap(ex));
		}
		return new CompletableFuture<>();
	}

}
