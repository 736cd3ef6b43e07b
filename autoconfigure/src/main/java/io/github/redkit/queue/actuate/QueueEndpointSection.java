package io.github.redkit.queue.actuate;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import io.github.redkit.actuate.EndpointSettings;
import io.github.redkit.actuate.RedkitEndpointSection;
import io.github.redkit.queue.DeadLetter;
import io.github.redkit.queue.QueueStats;
import io.github.redkit.queue.QueueTemplate;
import io.github.redkit.queue.internal.QueueKeys;
import io.github.redkit.queue.internal.QueuePurge;
import io.github.redkit.queue.internal.RedisQueueTemplate;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.Ordered;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The {@code queues} section of the {@code redkit} endpoint: the configured queues (in
 * the summary), their counts and store (with a stream queue's consumers and oldest
 * message in flight), their dead letters one page at a time at
 * {@code queues/{queue}/dead-letters} (payloads hidden unless
 * {@code redkit.endpoint.show-payloads}), the replay of dead letters ({@code POST} there)
 * and the purge ({@code DELETE queues/{queue}}).
 */
public final class QueueEndpointSection implements RedkitEndpointSection, Ordered {

	/** After locks. */
	public static final int ORDER = 300;

	private static final String DEAD_LETTERS = "dead-letters";

	private static final Log logger = LogFactory.getLog(QueueEndpointSection.class);

	private final QueueTemplate queueTemplate;

	private final Collection<String> queueNames;

	private final RedisConnectionFactory connectionFactory;

	private final Function<String, QueueKeys> keys;

	private final EndpointSettings settings;

	/**
	 * Creates the section.
	 * @param queueTemplate the queue template
	 * @param queueNames the configured queues
	 * @param connectionFactory the connection factory
	 * @param keys the keys of each queue by name, as its settings say
	 * @param settings the endpoint's settings
	 */
	public QueueEndpointSection(QueueTemplate queueTemplate, Collection<String> queueNames,
			RedisConnectionFactory connectionFactory, Function<String, QueueKeys> keys, EndpointSettings settings) {
		this.queueTemplate = queueTemplate;
		this.queueNames = List.copyOf(queueNames);
		this.connectionFactory = connectionFactory;
		this.keys = keys;
		this.settings = settings;
	}

	@Override
	public String name() {
		return "queues";
	}

	@Override
	public String capability() {
		return "queue";
	}

	@Override
	public int getOrder() {
		return ORDER;
	}

	/**
	 * The configured queues' names, as {@code queues}.
	 * @return the summary's entry
	 */
	@Override
	public Map<String, Object> summary() {
		return Map.of("queues", this.queueNames);
	}

	/**
	 * The counts of every configured queue.
	 * @return counts per queue
	 */
	@Override
	public Map<String, Object> read(@Nullable String cursor, @Nullable Integer count) {
		Map<String, Object> stats = new LinkedHashMap<>();
		for (String queue : this.queueNames) {
			QueueStats queueStats = this.queueTemplate.stats(queue);
			Map<String, Object> shown = new LinkedHashMap<>();
			shown.put("depth", queueStats.ready());
			shown.put("inFlight", queueStats.inFlight());
			shown.put("delayed", queueStats.delayed());
			shown.put("deadLetters", queueStats.deadLetters());
			shown.put("oldestAge", queueStats.oldestAge().toString());
			if (this.queueTemplate instanceof RedisQueueTemplate redkit) {
				shown.putAll(redkit.details(queue));
			}
			stats.put(queue, shown);
		}
		return stats;
	}

	/**
	 * {@code queues/{queue}/dead-letters}: one page of a queue's dead letters.
	 */
	@Override
	public @Nullable Object read(List<String> path, @Nullable Integer offset, @Nullable Integer count) {
		return isDeadLetters(path) ? deadLetters(path.get(0), offset, count) : null;
	}

	/**
	 * {@code queues/{queue}/dead-letters}: replays one dead letter ({@code id}) or all.
	 */
	@Override
	public @Nullable Object write(List<String> path, @Nullable String id, String operator) {
		return isDeadLetters(path) ? Map.of("replayed", replay(path.get(0), id, operator)) : null;
	}

	/**
	 * {@code queues/{queue}}: purges the queue.
	 */
	@Override
	public @Nullable Object delete(List<String> path, String operator) {
		return (path.size() == 1) ? Map.of("purgedKeys", purge(path.get(0), operator)) : null;
	}

	private static boolean isDeadLetters(List<String> path) {
		return path.size() == 2 && DEAD_LETTERS.equals(path.get(1));
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
			long deleted = QueuePurge.purge(connection, this.keys.apply(queue));
			logger.warn("Queue '" + queue + "' purged by " + who + " through the redkit endpoint");
			return deleted;
		}
	}

}
