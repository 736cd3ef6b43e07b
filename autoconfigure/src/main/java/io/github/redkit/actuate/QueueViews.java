package io.github.redkit.actuate;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.queue.DeadLetter;
import io.github.redkit.queue.QueuePurge;
import io.github.redkit.queue.QueueStats;
import io.github.redkit.queue.QueueTemplate;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Queues: their counts, their dead letters one page at a time (payloads hidden unless
 * {@code redkit.endpoint.show-payloads}), the replay of dead letters and the purge.
 */
public class QueueViews {

	private static final Log logger = LogFactory.getLog(QueueViews.class);

	private final QueueTemplate queueTemplate;

	private final Collection<String> queueNames;

	private final RedisConnectionFactory connectionFactory;

	private final RedisKeyspace keyspace;

	private final EndpointSettings settings;

	/**
	 * Creates the views.
	 * @param queueTemplate the queue template
	 * @param queueNames the configured queues
	 * @param connectionFactory the connection factory
	 * @param keyspace the keyspace
	 * @param settings the endpoint's settings
	 */
	public QueueViews(QueueTemplate queueTemplate, Collection<String> queueNames,
			RedisConnectionFactory connectionFactory, RedisKeyspace keyspace, EndpointSettings settings) {
		this.queueTemplate = queueTemplate;
		this.queueNames = List.copyOf(queueNames);
		this.connectionFactory = connectionFactory;
		this.keyspace = keyspace;
		this.settings = settings;
	}

	/**
	 * The configured queues' names.
	 * @return the names
	 */
	public Collection<String> names() {
		return this.queueNames;
	}

	/**
	 * The counts of every configured queue.
	 * @return counts per queue
	 */
	public Map<String, Object> stats() {
		Map<String, Object> stats = new LinkedHashMap<>();
		for (String queue : this.queueNames) {
			QueueStats queueStats = this.queueTemplate.stats(queue);
			stats.put(queue,
					Map.of("depth", queueStats.ready(), "inFlight", queueStats.inFlight(), "delayed",
							queueStats.delayed(), "deadLetters", queueStats.deadLetters(), "oldestAge",
							queueStats.oldestAge().toString()));
		}
		return stats;
	}

	/**
	 * One page of a queue's dead letters, oldest first.
	 * @param queue the queue
	 * @param offset how many to skip
	 * @param count how many at most
	 * @return the page
	 */
	public Map<String, Object> deadLetters(String queue, @Nullable Integer offset, @Nullable Integer count) {
		int skip = Math.max(0, (offset != null) ? offset : 0);
		int wanted = this.settings.pageSize(count, 20);
		List<DeadLetter> letters = this.queueTemplate.deadLetters(queue, skip + wanted);
		List<Map<String, Object>> page = letters.stream().skip(skip).map(this::describe).toList();
		return Map.of("queue", queue, "offset", skip, "deadLetters", page);
	}

	private Map<String, Object> describe(DeadLetter letter) {
		Map<String, Object> described = new LinkedHashMap<>();
		described.put("id", letter.id());
		described.put("deliveries", letter.deliveries());
		described.put("error", letter.error());
		described.put("deadAt", letter.deadAt().toString());
		if (this.settings.showPayloads()) {
			described.put("payload", letter.payloadJson());
		}
		return described;
	}

	/**
	 * Moves one dead letter, or all, back to the queue.
	 * @param queue the queue
	 * @param id the dead letter, or {@code null} for all
	 * @param who the operator, if known
	 * @return how many were re-queued
	 */
	public long replay(String queue, @Nullable String id, String who) {
		long replayed = (id != null) ? (this.queueTemplate.requeueDeadLetter(queue, id) ? 1 : 0)
				: this.queueTemplate.requeueDeadLetters(queue);
		logger.info(replayed + " dead letter(s) of queue '" + queue + "' replayed by " + who
				+ " through the redkit endpoint");
		return replayed;
	}

	/**
	 * Deletes every message of a queue, dead letters included. Logged at WARN.
	 * @param queue the queue
	 * @param who the operator, if known
	 * @return how many of the queue's keys existed
	 */
	public long purge(String queue, String who) {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			long deleted = QueuePurge.purge(connection, this.keyspace, queue);
			logger.warn("Queue '" + queue + "' purged by " + who + " through the redkit endpoint");
			return deleted;
		}
	}

}
