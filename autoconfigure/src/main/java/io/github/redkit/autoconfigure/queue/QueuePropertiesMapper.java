package io.github.redkit.autoconfigure.queue;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

import io.github.redkit.autoconfigure.DurationChecks;
import io.github.redkit.queue.BackoffPolicy;
import io.github.redkit.queue.CollapsePolicy;
import io.github.redkit.queue.ExistingStream;
import io.github.redkit.queue.QueueOrder;
import io.github.redkit.queue.QueueSettings;
import io.github.redkit.queue.QueueStore;
import io.github.redkit.queue.internal.QueueKeys;

/**
 * Checks the queue properties and maps them, once at start-up, to the immutable
 * {@link QueueSettings} of each queue; a failed check names the property.
 */
final class QueuePropertiesMapper {

	private QueuePropertiesMapper() {
	}

	/**
	 * The settings of every queue: its own when it is listed under
	 * {@code redkit.queue.queues}, else those of {@code redkit.queue.defaults}.
	 * @param properties the properties
	 * @return the settings by queue name
	 */
	static Function<String, QueueSettings> map(QueueProperties properties) {
		DurationChecks.positive(properties.getPollTimeout(), "redkit.queue.poll-timeout");
		DurationChecks.positive(properties.getShutdownTimeout(), "redkit.queue.shutdown-timeout");
		if (properties.getDefaults().getStreamKey() != null || properties.getDefaults().getGroup() != null
				|| properties.getDefaults().getPayloadField() != null) {
			throw new IllegalArgumentException("redkit.queue.defaults.stream-key, group and payload-field are set per"
					+ " queue (redkit.queue.queues.<name>.stream-key): each queue reads its own stream");
		}
		QueueSettings defaults = settings(properties.getDefaults(), "redkit.queue.defaults");
		Map<String, QueueSettings> queues = new LinkedHashMap<>();
		properties.getQueues()
			.forEach((name, queue) -> queues.put(name, settings(queue, "redkit.queue.queues." + name)));
		return new Prepared(Map.copyOf(queues), defaults);
	}

	private static QueueSettings settings(QueueProperties.Queue queue, String prefix) {
		if (queue.getOrder() == null || queue.getCollapse() == null) {
			throw new IllegalArgumentException(prefix + ".order and " + prefix + ".collapse must be set");
		}
		DurationChecks.positive(queue.getVisibilityTimeout(), prefix + ".visibility-timeout");
		DurationChecks.positive(queue.getDeadLetterRetention(), prefix + ".dead-letter-retention");
		if (queue.getMaxAttempts() <= 0) {
			throw new IllegalArgumentException(prefix + ".max-attempts must be > 0");
		}
		if (queue.getPrefetch() < 1 || queue.getPrefetch() > 1000) {
			throw new IllegalArgumentException(prefix + ".prefetch must be between 1 and 1000");
		}
		QueueSettings settings = new QueueSettings(queue.getOrder(), queue.getVisibilityTimeout(),
				queue.getMaxAttempts(), backoff(queue.getBackoff(), prefix + ".backoff"), queue.isDeadLetter(),
				queue.getDeadLetterRetention(), queue.getCollapse(), queue.getPrefetch());
		return store(settings, queue, prefix);
	}

	/**
	 * Refuses, naming the property, a setting the queue's store cannot honour: the stream
	 * store reads oldest first, has no delayed set (so no collapsing either) and retries
	 * by letting a pending entry be claimed again, which is at most a visibility timeout
	 * away.
	 */
	private static QueueSettings store(QueueSettings settings, QueueProperties.Queue queue, String prefix) {
		QueueStore store = queue.getStore();
		if (store == null) {
			throw new IllegalArgumentException(prefix + ".store must be list or stream");
		}
		if (queue.getMaxLength() < 0) {
			throw new IllegalArgumentException(prefix + ".max-length must be >= 0");
		}
		if (store == QueueStore.LIST) {
			if (queue.getStreamKey() != null || queue.getGroup() != null || queue.getPayloadField() != null) {
				throw new IllegalArgumentException(prefix + ".stream-key, group and payload-field need " + prefix
						+ ".store=stream: a list queue reads its own list");
			}
			if (queue.getMaxLength() != 0) {
				throw new IllegalArgumentException(prefix + ".max-length is honoured by the stream store only ("
						+ prefix + ".store=stream); a list queue is never trimmed");
			}
			return settings;
		}
		String cannot = " cannot be honoured by the stream store (" + prefix + ".store=stream): ";
		if (settings.order() != QueueOrder.FIFO) {
			throw new IllegalArgumentException(prefix + ".order=" + settings.order().name().toLowerCase(Locale.ROOT)
					+ cannot + "a stream hands out its oldest entries first; use order fifo or the list store");
		}
		if (settings.collapse() != CollapsePolicy.NONE) {
			throw new IllegalArgumentException(
					prefix + ".collapse=" + settings.collapse().name().toLowerCase(Locale.ROOT).replace('_', '-')
							+ cannot + "it has no delayed messages to collapse; use collapse none or the list store");
		}
		if (settings.longestBackoff().compareTo(settings.visibilityTimeout()) > 0) {
			throw new IllegalArgumentException(prefix + ".backoff.max-delay" + cannot + "a retry waits at most "
					+ prefix + ".visibility-timeout (" + settings.visibilityTimeout() + "), and the longest backoff of "
					+ settings.maxAttempts() + " attempts, jitter included, is " + settings.longestBackoff()
					+ "; lower the backoff or use the list store");
		}
		QueueSettings stream = settings.withStore(QueueStore.STREAM, queue.getMaxLength());
		return (queue.getStreamKey() != null) ? existing(stream, queue, prefix) : stream;
	}

	/**
	 * A queue reading a stream another application writes: Redkit never writes to it, so
	 * it is never trimmed, and its keys must be able to share the stream's cluster slot.
	 */
	private static QueueSettings existing(QueueSettings settings, QueueProperties.Queue queue, String prefix) {
		String key = queue.getStreamKey();
		if (key == null || key.isBlank()) {
			throw new IllegalArgumentException(prefix + ".stream-key must not be blank");
		}
		if (queue.getMaxLength() != 0) {
			throw new IllegalArgumentException(prefix + ".max-length cannot be honoured with " + prefix
					+ ".stream-key: Redkit never trims a stream another application writes");
		}
		if (queue.getGroup() == null || queue.getGroup().isBlank()) {
			throw new IllegalArgumentException(prefix + ".group must be set with " + prefix
					+ ".stream-key: the consumer group the queue reads the stream with");
		}
		try {
			QueueKeys.hashTag(key);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException(prefix + ".stream-key: " + ex.getMessage(), ex);
		}
		try {
			return settings.withExistingStream(new ExistingStream(key, queue.getGroup(), queue.getStartFrom(),
					queue.isCreateGroup(), queue.getPayloadField()));
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException(
					prefix + ".start-from must be 0, $ or an entry id (<ms>-<seq>), not '" + queue.getStartFrom() + "'",
					ex);
		}
	}

	private static BackoffPolicy backoff(QueueBackoffProperties backoff, String prefix) {
		if (backoff.getType() == null) {
			throw new IllegalArgumentException(prefix + ".type must be fixed or exponential");
		}
		if (backoff.getDelay() == null || backoff.getDelay().isNegative()) {
			throw new IllegalArgumentException(prefix + ".delay must be >= 0");
		}
		if (backoff.getMaxDelay() == null || backoff.getMaxDelay().compareTo(backoff.getDelay()) < 0) {
			throw new IllegalArgumentException(prefix + ".max-delay must be >= " + prefix + ".delay");
		}
		if (backoff.getMultiplier() < 1) {
			throw new IllegalArgumentException(prefix + ".multiplier must be >= 1");
		}
		if (backoff.getJitter() < 0 || backoff.getJitter() > 1) {
			throw new IllegalArgumentException(prefix + ".jitter must be between 0 and 1");
		}
		double multiplier = (backoff.getType() == QueueBackoffProperties.Type.FIXED) ? 1.0 : backoff.getMultiplier();
		return new BackoffPolicy(backoff.getDelay(), multiplier, backoff.getMaxDelay(), backoff.getJitter());
	}

	/**
	 * The prepared settings: a lookup per call, nothing built.
	 *
	 * @param queues the settings of the listed queues
	 * @param defaults the settings of the others
	 */
	private record Prepared(Map<String, QueueSettings> queues,
			QueueSettings defaults) implements Function<String, QueueSettings> {

		@Override
		public QueueSettings apply(String name) {
			return this.queues.getOrDefault(name, this.defaults);
		}

	}

}
