package io.github.redkit.autoconfigure.queue;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import io.github.redkit.queue.CollapsePolicy;
import io.github.redkit.queue.QueueOrder;
import io.github.redkit.queue.QueueStore;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;

/**
 * Properties of Redkit's queues.
 */
@ConfigurationProperties("redkit.queue")
public class QueueProperties {

	/**
	 * Whether to enable queues.
	 */
	private boolean enabled = true;

	/**
	 * Longest blocking wait of a consumer on an empty queue; also bounds how late an idle
	 * consumer notices expired and due messages.
	 */
	private Duration pollTimeout = Duration.ofSeconds(1);

	/**
	 * How long stopping the application waits for messages being handled before giving
	 * them back to their queue.
	 */
	private Duration shutdownTimeout = Duration.ofSeconds(30);

	/**
	 * Settings of queues not listed under 'queues'.
	 */
	private Queue defaults = new Queue();

	/**
	 * Settings per queue name; these queues also get gauges.
	 */
	private Map<String, Queue> queues = new LinkedHashMap<>();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public Duration getPollTimeout() {
		return this.pollTimeout;
	}

	public void setPollTimeout(Duration pollTimeout) {
		this.pollTimeout = pollTimeout;
	}

	public Duration getShutdownTimeout() {
		return this.shutdownTimeout;
	}

	public void setShutdownTimeout(Duration shutdownTimeout) {
		this.shutdownTimeout = shutdownTimeout;
	}

	public Queue getDefaults() {
		return this.defaults;
	}

	public void setDefaults(Queue defaults) {
		this.defaults = defaults;
	}

	public Map<String, Queue> getQueues() {
		return this.queues;
	}

	public void setQueues(Map<String, Queue> queues) {
		this.queues = queues;
	}

	/**
	 * Settings of one queue.
	 */
	public static class Queue {

		/**
		 * Order in which ready messages are taken: fifo or lifo.
		 */
		private QueueOrder order = QueueOrder.FIFO;

		/**
		 * How long a taken message may stay unacknowledged before it is delivered again.
		 */
		private Duration visibilityTimeout = Duration.ofSeconds(30);

		/**
		 * Deliveries before a failing message is dead-lettered (or dropped).
		 */
		private int maxAttempts = 5;

		/**
		 * Delay before a failed message is delivered again.
		 */
		@NestedConfigurationProperty
		private final QueueBackoffProperties backoff = new QueueBackoffProperties();

		/**
		 * Whether exhausted messages go to the dead-letter queue (else they are dropped).
		 */
		private boolean deadLetter = true;

		/**
		 * How long dead letters are kept.
		 */
		private Duration deadLetterRetention = Duration.ofDays(7);

		/**
		 * What sendDelayed does with a payload equal to one still waiting: first-wins,
		 * last-wins or none.
		 */
		private CollapsePolicy collapse = CollapsePolicy.NONE;

		/**
		 * How many messages a listener consumer takes per round trip (1 to 1000). The
		 * visibility timeout of each starts at the take, so prefetch times the handling
		 * time must stay well below it.
		 */
		private int prefetch = 1;

		/**
		 * Where the messages are kept: list (lists and sorted sets, every feature) or
		 * stream (a stream read by a consumer group, Redis 6.2 or later: FIFO only, no
		 * delayed or collapsing sends, a backoff no longer than the visibility timeout).
		 */
		private QueueStore store = QueueStore.LIST;

		/**
		 * Stream store only: the length each send trims the stream to, oldest entries
		 * first whether delivered or not (XADD MAXLEN ~, so about that many); 0 = never
		 * trimmed.
		 */
		private long maxLength;

		/**
		 * Stream store only: the key of an existing stream another application writes
		 * (plain XADD entries, any fields), used as it is, to read with 'group' instead
		 * of the queue's own stream. Redkit acknowledges its entries (XACK, never XDEL),
		 * retries and dead-letters them, and never sends to it. Per queue only.
		 */
		private @Nullable String streamKey;

		/**
		 * With 'stream-key': the consumer group the queue reads the stream with.
		 */
		private @Nullable String group;

		/**
		 * With 'stream-key' and 'create-group': where a group that does not exist yet
		 * starts: 0 (every entry), $ (entries added from now on) or an entry id. An
		 * existing group keeps its place.
		 */
		private String startFrom = "$";

		/**
		 * With 'stream-key': whether a missing group (and the stream, if missing) is
		 * created at start-up from 'start-from'; else a missing stream or group fails
		 * start-up.
		 */
		private boolean createGroup;

		/**
		 * With 'stream-key': the entry field holding the payload (JSON, or the text
		 * itself for a String parameter); an entry without it is dead-lettered at once.
		 * Unset, the payload is every field (e.g. a Map<String, String> parameter).
		 */
		private @Nullable String payloadField;

		public @Nullable String getStreamKey() {
			return this.streamKey;
		}

		public void setStreamKey(@Nullable String streamKey) {
			this.streamKey = streamKey;
		}

		public @Nullable String getGroup() {
			return this.group;
		}

		public void setGroup(@Nullable String group) {
			this.group = group;
		}

		public String getStartFrom() {
			return this.startFrom;
		}

		public void setStartFrom(String startFrom) {
			this.startFrom = startFrom;
		}

		public boolean isCreateGroup() {
			return this.createGroup;
		}

		public void setCreateGroup(boolean createGroup) {
			this.createGroup = createGroup;
		}

		public @Nullable String getPayloadField() {
			return this.payloadField;
		}

		public void setPayloadField(@Nullable String payloadField) {
			this.payloadField = payloadField;
		}

		public QueueOrder getOrder() {
			return this.order;
		}

		public void setOrder(QueueOrder order) {
			this.order = order;
		}

		public Duration getVisibilityTimeout() {
			return this.visibilityTimeout;
		}

		public void setVisibilityTimeout(Duration visibilityTimeout) {
			this.visibilityTimeout = visibilityTimeout;
		}

		public int getMaxAttempts() {
			return this.maxAttempts;
		}

		public void setMaxAttempts(int maxAttempts) {
			this.maxAttempts = maxAttempts;
		}

		public QueueBackoffProperties getBackoff() {
			return this.backoff;
		}

		public boolean isDeadLetter() {
			return this.deadLetter;
		}

		public void setDeadLetter(boolean deadLetter) {
			this.deadLetter = deadLetter;
		}

		public Duration getDeadLetterRetention() {
			return this.deadLetterRetention;
		}

		public void setDeadLetterRetention(Duration deadLetterRetention) {
			this.deadLetterRetention = deadLetterRetention;
		}

		public CollapsePolicy getCollapse() {
			return this.collapse;
		}

		public void setCollapse(CollapsePolicy collapse) {
			this.collapse = collapse;
		}

		public int getPrefetch() {
			return this.prefetch;
		}

		public void setPrefetch(int prefetch) {
			this.prefetch = prefetch;
		}

		public QueueStore getStore() {
			return this.store;
		}

		public void setStore(QueueStore store) {
			this.store = store;
		}

		public long getMaxLength() {
			return this.maxLength;
		}

		public void setMaxLength(long maxLength) {
			this.maxLength = maxLength;
		}

	}

}
