package io.github.redkit.resilience4j;

import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.redkit.concurrency.ConcurrencyPermit;
import org.jspecify.annotations.Nullable;

/**
 * The permits a {@link RedkitBulkhead} holds, each given back once, a permit that holds
 * no place in Redis first.
 * <p>
 * Resilience4j gives a place back without saying which ({@code onComplete()} has no
 * argument), and not always on the thread that took it: its asynchronous operators give
 * back on whichever thread completes, and resilience4j-kotlin's coroutines take on one
 * dispatcher thread and give back on another, interleaved with other calls. So a call
 * that ends gives back a permit that holds no place (let through by the failure mode, or
 * whose lease was lost) while there is one, and only then a leased one. Whatever order
 * the calls end in, the leased places kept are never fewer than the leased calls still
 * running: each leased place given back stands for a call that ended, since every
 * unleased permit was given back before it. The cost is a place kept a little longer than
 * its call (until the unleased calls end); the other way round would free a place while
 * its call still runs, and let more calls run at once than the limit.
 */
final class HeldPermits {

	private final ConcurrentLinkedDeque<Held> all = new ConcurrentLinkedDeque<>();

	/**
	 * Notes a permit taken for a call.
	 * @param permit the permit
	 */
	void add(ConcurrencyPermit permit) {
		this.all.add(new Held(permit));
	}

	/**
	 * Takes out the permit a call that ends now gives back: one that holds no place in
	 * Redis, otherwise any.
	 * @return the permit, or {@code null} when none is held
	 */
	@Nullable ConcurrencyPermit giveBack() {
		Held held = holdingNothingFirst();
		if (held == null) {
			return null;
		}
		this.all.remove(held);
		return held.permit;
	}

	/**
	 * Takes out a permit whose call never started (its admission failed after the permit
	 * was taken).
	 * @param permit the permit
	 * @return whether it was still held
	 */
	boolean forget(ConcurrencyPermit permit) {
		for (Held held : this.all) {
			if (held.permit == permit && held.claim()) {
				this.all.remove(held);
				return true;
			}
		}
		return false;
	}

	private @Nullable Held holdingNothingFirst() {
		for (Held held : this.all) {
			if (!held.permit.isHeld() && held.claim()) {
				return held;
			}
		}
		for (Held held : this.all) {
			if (held.claim()) {
				return held;
			}
		}
		return null;
	}

	private static final class Held {

		private final ConcurrencyPermit permit;

		private final AtomicBoolean given = new AtomicBoolean();

		Held(ConcurrencyPermit permit) {
			this.permit = permit;
		}

		boolean claim() {
			return this.given.compareAndSet(false, true);
		}

	}

}
