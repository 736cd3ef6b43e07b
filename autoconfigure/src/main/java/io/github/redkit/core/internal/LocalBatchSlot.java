package io.github.redkit.core.internal;

import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * One key's local allowance: the batch this instance took from Redis and hands out
 * itself, and the batch being taken for it, so that the calls of one key take one batch
 * at a time. Each call asks {@link #next} what to do: be served from the batch, wait for
 * the batch being taken, take one, or go to Redis itself (after Redis refused a batch, or
 * once the slot was forgotten). What a batch is and how it is handed out is the
 * capability's. Once the application stops, the slot takes no batch and keeps none: calls
 * go to Redis one by one. A batch leaves the slot as {@link Retired}: its give-back is
 * awaited by a stop from that moment, under the slot's lock, so that a stop either finds
 * the batch in the slot or waits for its give-back.
 *
 * @param <B> the batch
 */
public final class LocalBatchSlot<B> {

	private final LocalBatchStop stop;

	private @Nullable B batch;

	private @Nullable CompletableFuture<Void> taking;

	// after a refused batch, calls go to Redis one by one until directUntil
	private boolean refused;

	private long directUntil;

	// forgotten by the sweep of idle slots: takes nothing any more
	private boolean forgotten;

	/**
	 * Creates an empty slot.
	 * @param stop tells when the application stops
	 */
	public LocalBatchSlot(LocalBatchStop stop) {
		this.stop = stop;
	}

	/**
	 * Decides what a call does, under the slot's lock.
	 * @param <R> what a call served from the batch gets
	 * @param now the call's time (monotonic nanoseconds)
	 * @param hand hands the call its share of the batch, or {@code null} when the batch
	 * cannot serve it (used up or ended): it is then retired
	 * @return the step
	 */
	public synchronized <R> Step<B, R> next(long now, Function<B, @Nullable R> hand) {
		Retired<B> retired = null;
		B current = this.batch;
		if (current != null) {
			R served = hand.apply(current);
			if (served != null) {
				return new Step<>(served, null, null, null, false);
			}
			retired = leaving(current);
		}
		if (this.forgotten || this.stop.stopping() || (this.refused && now - this.directUntil < 0)) {
			return new Step<>(null, retired, null, null, true);
		}
		if (this.taking != null) {
			return new Step<>(null, retired, this.taking, null, false);
		}
		CompletableFuture<Void> taking = new CompletableFuture<>();
		this.taking = taking;
		// awaited by a stop from now on, not from when the take is sent: a stop whose
		// sweep finds this slot taking (it takes this lock after setting its flag) must
		// wait for a take not sent yet, and for the give-back of what it brings
		this.stop.track(taking);
		return new Step<>(null, retired, null, taking, false);
	}

	/**
	 * Takes a batch for the calls that wait for it: they ask again once the take is done,
	 * whether it answered, failed or threw, so that no call waits for a take that never
	 * ends (nor does a stop, which awaits it from the moment {@link #next} decided it).
	 * @param <T> what the call that takes the batch gets
	 * @param taking what {@link Step#taking()} gave the call that takes the batch
	 * @param take sends the take (and installs the batch through {@link #taken})
	 * @return what the call gets: the take's answer, or what it threw as a failure
	 */
	public <T> CompletableFuture<T> take(CompletableFuture<Void> taking, Supplier<CompletableFuture<T>> take) {
		CompletableFuture<T> taken;
		try {
			taken = take.get();
		}
		catch (RuntimeException ex) {
			doneTaking(taking);
			return CompletableFuture.failedFuture(ex);
		}
		catch (Error ex) {
			doneTaking(taking);
			throw ex;
		}
		// a stop awaits the slot's own taking (tracked by next), never the caller's
		// stage, which a caller that gives up cancels; it completes once the take's
		// batch is installed or given back
		return taken.whenComplete((result, ex) -> doneTaking(taking));
	}

	/**
	 * A batch was taken: it serves the calls from now on, unless the application is
	 * stopping.
	 * @param batch the batch
	 * @return the batch it replaced, or the batch itself when stopping, to be given back,
	 * or {@code null}
	 */
	public synchronized @Nullable Retired<B> taken(B batch) {
		if (this.stop.stopping()) {
			return new Retired<>(batch, this.stop.track(new CompletableFuture<>()));
		}
		B replaced = this.batch;
		this.batch = batch;
		return (replaced != null) ? new Retired<>(replaced, this.stop.track(new CompletableFuture<>())) : null;
	}

	/**
	 * Redis refused a batch: calls go to Redis one by one until then.
	 * @param until monotonic nanoseconds
	 */
	public synchronized void refusedUntil(long until) {
		this.refused = true;
		this.directUntil = until;
	}

	/**
	 * The batch being taken was taken, or could not be: the calls that waited for it ask
	 * again.
	 * @param taking what {@link Step#taking()} gave the call that took it
	 */
	private void doneTaking(CompletableFuture<Void> taking) {
		synchronized (this) {
			this.taking = null;
		}
		taking.complete(null);
	}

	/**
	 * Takes the batch out of the slot, to be given back.
	 * @param live whether the batch may still be handed out, or {@code null} to take it
	 * whatever it is
	 * @return the batch, or {@code null} when there is none, one is being taken, or it is
	 * still live
	 */
	public synchronized @Nullable Retired<B> release(@Nullable Function<B, Boolean> live) {
		B current = this.batch;
		if (current == null || (live != null && (this.taking != null || live.apply(current)))) {
			return null;
		}
		return leaving(current);
	}

	/**
	 * Takes this batch out of the slot, to be given back, if the slot still holds it:
	 * when the batch's time is up and no call came to retire it.
	 * @param ended the batch
	 * @return the batch, or {@code null} when the slot no longer holds it
	 */
	public synchronized @Nullable Retired<B> retire(B ended) {
		if (this.batch != ended) {
			return null;
		}
		return leaving(ended);
	}

	/**
	 * Takes the batch out of the slot, its give-back awaited by a stop from now on: a
	 * stop whose sweep finds the slot empty (it takes this lock after setting its flag)
	 * must still wait for the give-back of a batch that left it just before, sent once
	 * this lock is released.
	 */
	private Retired<B> leaving(B current) {
		this.batch = null;
		return new Retired<>(current, this.stop.track(new CompletableFuture<>()));
	}

	/**
	 * Forgets the slot if it holds nothing and takes nothing: from then on it takes no
	 * batch and every call that still reaches it goes to Redis itself. A call may have
	 * found the slot just before it was forgotten; a batch it took into a forgotten slot
	 * would never be given back (nothing sweeps a slot no longer known), and would be a
	 * second batch next to the one of the slot made in its place.
	 * @return {@code true} when the slot was forgotten
	 */
	public synchronized boolean forget() {
		if (this.batch != null || this.taking != null) {
			return false;
		}
		this.forgotten = true;
		return true;
	}

	/**
	 * What a call does.
	 *
	 * @param <B> the batch
	 * @param <R> what a served call gets
	 * @param served what the call got from the batch, or {@code null}
	 * @param retired a batch the call found used up or ended, to be given back through
	 * {@link Retired#giveBack}
	 * @param waitFor the batch being taken, to ask again when it is
	 * @param taking the call takes a batch, through {@link LocalBatchSlot#take}
	 * @param direct the call goes to Redis itself
	 */
	public record Step<B, R>(@Nullable R served, @Nullable Retired<B> retired,
			@Nullable CompletableFuture<Void> waitFor, @Nullable CompletableFuture<Void> taking, boolean direct) {
	}

	/**
	 * A batch out of its slot, to be given back: a stop awaits it from the moment it left
	 * the slot until {@link #giveBack} has started its give-back (which the capability
	 * tracks itself).
	 *
	 * @param <B> the batch
	 * @param batch the batch
	 * @param leaving completed once the give-back was started
	 */
	public record Retired<B>(B batch, CompletableFuture<Void> leaving) {

		/**
		 * Gives the batch back; a stop that awaits it then awaits what the give-back
		 * tracks, whether it started or threw.
		 * @param giveBack starts the give-back (tracking it with the stop)
		 */
		public void giveBack(Consumer<? super B> giveBack) {
			try {
				giveBack.accept(this.batch);
			}
			finally {
				this.leaving.complete(null);
			}
		}

	}

}
