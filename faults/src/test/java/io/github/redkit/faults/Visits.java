package io.github.redkit.faults;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

import org.jspecify.annotations.Nullable;

/**
 * A resource shared by every instance of one run (they all run in this JVM): each holder
 * of a permit enters it when its permit is granted and exits it when it stops, and the
 * resource keeps every visit, so that the checker can count the holders inside at any
 * moment.
 */
final class Visits {

	private final List<Visit> visits = new CopyOnWriteArrayList<>();

	/**
	 * A holder enters.
	 * @param client the client
	 * @param face how it took its permit
	 * @param key the key
	 * @param acquireInvoked when it asked for its permit
	 * @return the visit, to exit
	 */
	Visit enter(Client client, String face, String key, long acquireInvoked) {
		Visit visit = new Visit(client.history(), client.process(), face, key, acquireInvoked);
		this.visits.add(visit);
		return visit;
	}

	List<Visit> all() {
		return new ArrayList<>(this.visits);
	}

	/**
	 * One holder's stay.
	 */
	final class Visit {

		private final History history;

		final int process;

		final String face;

		final String key;

		final long acquireInvoked;

		final long entered;

		private final AtomicBoolean done = new AtomicBoolean();

		volatile long exited = Long.MAX_VALUE;

		/** Whether its permit was still held when it left; null when it cannot tell. */
		volatile @Nullable Boolean heldToTheEnd;

		Visit(History history, int process, String face, String key, long acquireInvoked) {
			this.history = history;
			this.process = process;
			this.face = face;
			this.key = key;
			this.acquireInvoked = acquireInvoked;
			this.entered = history.now();
		}

		/**
		 * Leaves, once.
		 * @param held whether its permit was still held, or null when it cannot tell
		 */
		void exit(@Nullable Boolean held) {
			if (this.done.compareAndSet(false, true)) {
				this.heldToTheEnd = held;
				this.exited = this.history.now();
				this.history.add(new Op(this.process, "hold-" + this.face, this.key, 0, this.entered, this.exited,
						Outcome.OK, this));
			}
		}

		/**
		 * What the checker reads of it, once it left.
		 * @return its stay
		 */
		Stay stay() {
			return new Stay(this.acquireInvoked, this.entered, this.exited, this.heldToTheEnd);
		}

		@Override
		public String toString() {
			return stay().toString();
		}

	}

	/**
	 * What the checker reads of a holder's stay: a hold's value, live or recorded.
	 * @param hold a hold
	 * @return its stay
	 */
	static Stay stay(Op hold) {
		return (hold.value() instanceof Visit visit) ? visit.stay() : (Stay) hold.value();
	}

	/**
	 * One holder's stay, as the checker reads it.
	 *
	 * @param acquireInvoked when it asked for its permit
	 * @param entered when it entered
	 * @param exited when it left
	 * @param heldToTheEnd whether its permit was still held when it left; null when it
	 * cannot tell
	 */
	record Stay(long acquireInvoked, long entered, long exited, @Nullable Boolean heldToTheEnd) {

		@Override
		public String toString() {
			return String.format("asked at %.1f ms, %s", this.acquireInvoked / 1e6,
					(this.heldToTheEnd == null) ? "held unseen" : this.heldToTheEnd ? "held to the end" : "lost");
		}

	}

}
