package io.github.redkit.faults;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;

/**
 * The shared record of one queue run, in this JVM: every take, extension and settlement
 * the instances' templates saw, and every handling of a message by a listener or a
 * polling client, all on the history's clock. Instances find it by the run's id.
 */
final class QueueLedger {

	private static final Map<String, QueueLedger> RUNS = new ConcurrentHashMap<>();

	private volatile @Nullable History history;

	final List<Take> takes = new CopyOnWriteArrayList<>();

	final List<Extension> extensions = new CopyOnWriteArrayList<>();

	final List<Settlement> settlements = new CopyOnWriteArrayList<>();

	final List<Handling> handlings = new CopyOnWriteArrayList<>();

	final List<TakeCall> calls = new CopyOnWriteArrayList<>();

	/** Payloads every handler fails: they end as dead letters, for the requeues. */
	final Set<String> poison = ConcurrentHashMap.newKeySet();

	final AtomicInteger handling = new AtomicInteger();

	static QueueLedger register(String run) {
		QueueLedger ledger = new QueueLedger();
		RUNS.put(run, ledger);
		return ledger;
	}

	/**
	 * Starts the ledger's clock: the history's, which exists once the clients run.
	 */
	void bind(History history) {
		this.history = history;
	}

	/**
	 * The history's clock; before the clients run (nothing was sent yet), a time before
	 * everything, so that nothing taken then can look held longer than it was.
	 */
	long now() {
		History history = this.history;
		return (history != null) ? history.now() : Long.MIN_VALUE / 4;
	}

	static QueueLedger of(String run) {
		QueueLedger ledger = RUNS.get(run);
		if (ledger == null) {
			throw new IllegalStateException("No queue run " + run);
		}
		return ledger;
	}

	static void forget(String run) {
		RUNS.remove(run);
	}

	/**
	 * What one instance's template reports to.
	 */
	RecordingQueueTemplate.Observer observer(int instance) {
		return new RecordingQueueTemplate.Observer() {

			@Override
			public long now() {
				return QueueLedger.this.now();
			}

			@Override
			public void took(String take, String payload, int deliveries, long invoked, long completed) {
				QueueLedger.this.takes.add(new Take(take, payload, deliveries, consumer(instance), invoked, completed));
			}

			@Override
			public void settling(String take, String how, long invoked) {
				QueueLedger.this.settlements.add(new Settlement(take, how, invoked, consumer(instance)));
			}

			@Override
			public void extended(String take, long invoked, long completed, Duration visibility,
					@Nullable Boolean extended) {
				QueueLedger.this.extensions
					.add(new Extension(take, invoked, completed, visibility.toNanos(), extended));
			}

		};
	}

	static String consumer(int instance) {
		return "i" + instance + "/" + Thread.currentThread().getName();
	}

	/**
	 * One take of a message.
	 */
	record Take(String take, String payload, int deliveries, String consumer, long invoked, long completed) {

		@Override
		public String toString() {
			return String.format("%s took %s (delivery %d, message %s, take %s) [%.1f..%.1f ms]", this.consumer,
					this.payload, this.deliveries, messageId(), token(), this.invoked / 1e6, this.completed / 1e6);
		}

		/**
		 * The message's id, from the in-flight entry
		 * ({@code <token>#<id>[;<headers>]|<deliveries>|<json>}): two first deliveries of
		 * one id are one element delivered twice or enqueued twice, of two ids two sends.
		 */
		String messageId() {
			String element = this.take.substring(this.take.indexOf('#') + 1);
			int end = element.length();
			for (char separator : new char[] { ';', '|' }) {
				int at = element.indexOf(separator);
				end = (at >= 0) ? Math.min(end, at) : end;
			}
			return element.substring(0, end);
		}

		String token() {
			int hash = this.take.indexOf('#');
			return (hash >= 0) ? this.take.substring(0, hash) : this.take;
		}

	}

	/**
	 * One {@code queue_claim} call as the instance's script runner sent it: every take,
	 * whether it took something, nothing, or got no answer.
	 *
	 * @param token the take's token
	 * @param instance the instance
	 * @param invoked when it was sent
	 * @param completed when it was answered or failed
	 * @param popped how many elements the answer held, {@code -1} when none came (its
	 * outcome unknown)
	 */
	record TakeCall(String token, int instance, long invoked, long completed, int popped) {

		boolean unknown() {
			return this.popped < 0;
		}

		@Override
		public String toString() {
			return String.format("take %s of i%d [%.1f..%.1f ms] %s", this.token, this.instance, this.invoked / 1e6,
					this.completed / 1e6, unknown() ? "unanswered" : "answered " + this.popped);
		}

	}

	/**
	 * One extension of a take's visibility; {@code extended} is null when it failed.
	 */
	record Extension(String take, long invoked, long completed, long visibilityNanos, @Nullable Boolean extended) {

	}

	/**
	 * The sending of a take's ack, fail or release, by a consumer ({@code null} in
	 * recordings made before it was kept): a stream take's key names the take of the same
	 * entry and count after a rollback too.
	 */
	record Settlement(String take, String how, long invoked, @Nullable String consumer) {

		Settlement(String take, String how, long invoked) {
			this(take, how, invoked, null);
		}

	}

	/**
	 * One handling of a message by a consumer; {@code ok} when it ended normally.
	 */
	record Handling(String take, String payload, String consumer, long start, long end, boolean ok) {

		@Override
		public String toString() {
			return String.format("%s handled %s [%.1f..%.1f ms]%s", this.consumer, this.payload, this.start / 1e6,
					this.end / 1e6, this.ok ? "" : " failed");
		}

	}

}
