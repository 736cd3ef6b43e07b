package io.github.redkit.resilience4j;

import java.util.ArrayDeque;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.redkit.concurrency.ConcurrencyPermit;
import org.jspecify.annotations.Nullable;

/**
 * The permits a {@link RedkitBulkhead} holds, each given back once, and whenever it can
 * be told, by the call that took it.
 * <p>
 * Resilience4j gives a place back without saying which ({@code onComplete()} has no
 * argument). Its synchronous decorators take a place with {@code acquirePermission()} and
 * give it back in a {@code finally} on the same thread, so a permit taken that way is
 * noted on its thread, and the innermost one not yet given back is that thread's call.
 * Its asynchronous operators ({@code CompletionStage}, {@code Future}, Reactor) take a
 * place with {@code tryAcquirePermission()} and give it back on whichever thread
 * completes: then a permit that holds no place in Redis (let through by the failure mode,
 * or whose lease was lost) is given back first. Giving back an unleased permit for a call
 * that held a leased one keeps a place taken a little longer than its call (until the
 * unleased calls end); the other way round would free a place while its call still runs,
 * and let more calls run at once than the limit.
 */
final class HeldPermits {

	private final ConcurrentLinkedDeque<Held> all = new ConcurrentLinkedDeque<>();

	// no initial value: a thread that only completes calls (Lettuce's, Reactor's) keeps
	// nothing
	private final ThreadLocal<@Nullable ArrayDeque<Held>> takenHere = new ThreadLocal<>();

	/**
	 * Notes a permit taken for a call.
	 * @param permit the permit
	 * @param onThisThread whether the call gives it back on this thread (taken by
	 * {@code acquirePermission()})
	 */
	void add(ConcurrencyPermit permit, boolean onThisThread) {
		Held held = new Held(permit);
		this.all.add(held);
		if (onThisThread) {
			ArrayDeque<Held> stack = this.takenHere.get();
			if (stack == null) {
				stack = new ArrayDeque<>();
				this.takenHere.set(stack);
			}
			// given back by another thread meanwhile (a misuse): forgotten here
			stack.removeIf(Held::given);
			stack.push(held);
		}
	}

	/**
	 * Takes out the permit a call that ends now gives back: the innermost one this thread
	 * took and has not given back, otherwise one that holds no place, otherwise any.
	 * @return the permit, or {@code null} when none is held
	 */
	@Nullable ConcurrencyPermit giveBack() {
		Held held = takenOnThisThread();
		if (held == null) {
			held = holdingNothingFirst();
		}
		if (held == null) {
			return null;
		}
		this.all.remove(held);
		return held.permit;
	}

	private @Nullable Held takenOnThisThread() {
		ArrayDeque<Held> stack = this.takenHere.get();
		if (stack == null) {
			return null;
		}
		try {
			for (Held held = stack.poll(); held != null; held = stack.poll()) {
				if (held.claim()) {
					return held;
				}
			}
			return null;
		}
		finally {
			if (stack.isEmpty()) {
				this.takenHere.remove();
			}
		}
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

		boolean given() {
			return this.given.get();
		}

	}

}
