package io.github.redkit.autoconfigure.queue;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

import io.github.redkit.autoconfigure.DurationChecks;
import io.github.redkit.queue.BackoffPolicy;
import io.github.redkit.queue.QueueSettings;

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
		return new QueueSettings(queue.getOrder(), queue.getVisibilityTimeout(), queue.getMaxAttempts(),
				backoff(queue.getBackoff(), prefix + ".backoff"), queue.isDeadLetter(), queue.getDeadLetterRetention(),
				queue.getCollapse(), queue.getPrefetch());
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
