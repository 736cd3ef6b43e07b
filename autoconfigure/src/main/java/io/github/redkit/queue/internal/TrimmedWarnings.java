package io.github.redkit.queue.internal;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.commons.logging.Log;

/**
 * Warns of held stream messages a writer deleted (a send's max-length trim, XTRIM, XDEL):
 * once a while per queue, with how many were lost since the last warning. A stream
 * trimmed under a backlog loses its held messages by the hundred, and a line each would
 * flood the log; each is at debug, and {@code redkit.queue.messages{outcome=trimmed}}
 * counts them all.
 */
final class TrimmedWarnings {

	private static final long WARN_INTERVAL_NANOS = Duration.ofSeconds(10).toNanos();

	private final Log logger;

	private final Map<String, Warnings> queues = new ConcurrentHashMap<>();

	/**
	 * Creates the warnings of a template.
	 * @param logger the template's
	 */
	TrimmedWarnings(Log logger) {
		this.logger = logger;
	}

	/**
	 * Notes a held message deleted from its stream, warning of it if the queue's last
	 * warning is old enough.
	 * @param queue the queue
	 * @param messageId the message
	 */
	void trimmed(String queue, String messageId) {
		String what = "Message " + messageId + " of queue '" + queue + "' was deleted from its stream while held"
				+ " (trimmed by a writer: max-length, XTRIM or XDEL): it is gone and cannot be delivered again";
		this.logger.debug(what);
		long since = this.queues.computeIfAbsent(queue, (name) -> new Warnings()).due();
		if (since > 0) {
			String count = (since > 1)
					? "; " + since + " messages of this queue were lost this way since the last warning" : "";
			this.logger.warn(what + count + "; keep the stream's length well above the queue's backlog");
		}
	}

	/**
	 * When a queue's next WARN may be written ({@link System#nanoTime()}), and the
	 * messages not warned of yet.
	 */
	private static final class Warnings {

		private final AtomicLong next = new AtomicLong(System.nanoTime());

		private final AtomicLong unwarned = new AtomicLong();

		/**
		 * Counts one message.
		 * @return how many to warn of now (this one included), 0 = not yet
		 */
		long due() {
			long lost = this.unwarned.incrementAndGet();
			long now = System.nanoTime();
			long next = this.next.get();
			if (now - next >= 0 && this.next.compareAndSet(next, now + WARN_INTERVAL_NANOS)) {
				this.unwarned.addAndGet(-lost);
				return lost;
			}
			return 0;
		}

	}

}
