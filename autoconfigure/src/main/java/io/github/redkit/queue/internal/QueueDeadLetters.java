package io.github.redkit.queue.internal;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import io.github.redkit.queue.DeadLetter;

import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The dead letters of a {@link RedisQueueTemplate}'s queues: listed from where either
 * store keeps them (the element, its error and when it was dead-lettered), re-queued
 * through the queue's store.
 */
final class QueueDeadLetters {

	private final StringRedisTemplate redis;

	private final QueueStores stores;

	QueueDeadLetters(StringRedisTemplate redis, QueueStores stores) {
		this.redis = redis;
		this.stores = stores;
	}

	List<DeadLetter> list(String queue, int limit) {
		QueueKeys k = this.stores.keys(queue);
		List<String> ids = new ArrayList<>(
				Objects.requireNonNull(this.redis.opsForZSet().range(k.deadIndex(), 0, limit - 1)));
		if (ids.isEmpty()) {
			return List.of();
		}
		List<Object> elements = this.redis.opsForHash().multiGet(k.dead(), new ArrayList<>(ids));
		List<Object> errors = this.redis.opsForHash().multiGet(k.deadErrors(), new ArrayList<>(ids));
		List<Double> times = this.redis.opsForZSet().score(k.deadIndex(), ids.toArray());
		List<DeadLetter> letters = new ArrayList<>();
		// an entry of a stream another application writes is its fields as a JSON object,
		// never a Redkit element, whatever its values look like
		boolean existing = this.stores.settings(queue).existingStream() != null;
		for (int i = 0; i < ids.size(); i++) {
			if (elements.get(i) instanceof String raw) {
				// an element that is not a Redkit one is listed whole, under the id
				// it was dead-lettered with
				Envelope envelope = existing ? null : Envelope.tryParse(raw);
				Double time = times.get(i);
				letters.add(new DeadLetter((envelope != null) ? envelope.id() : ids.get(i),
						(envelope != null) ? envelope.json() : raw, (envelope != null) ? envelope.deliveries() : 0,
						(String) errors.get(i), Instant.ofEpochMilli((time != null) ? time.longValue() : 0)));
			}
		}
		return letters;
	}

	boolean requeue(String queue, String id) {
		// a call of its own, so that the same call sent again answers as the first did
		if (isStream(queue)) {
			ExistingStreams.refuseWrites(queue, this.stores.settings(queue).existingStream(),
					"re-queues dead letters to it");
			return this.stores.streams().requeue(this.stores.keys(queue), id, 1) > 0;
		}
		return this.stores.lists().requeue(this.stores.keys(queue), id, 1) > 0;
	}

	long requeueAll(String queue) {
		if (isStream(queue)) {
			ExistingStreams.refuseWrites(queue, this.stores.settings(queue).existingStream(),
					"re-queues dead letters to it");
		}
		long total = 0;
		long moved;
		do {
			moved = isStream(queue)
					? this.stores.streams().requeue(this.stores.keys(queue), "", ListQueueStore.REAP_BATCH)
					: this.stores.lists().requeue(this.stores.keys(queue), "", ListQueueStore.REAP_BATCH);
			total += moved;
		}
		while (moved > 0);
		return total;
	}

	private boolean isStream(String queue) {
		return this.stores.isStream(queue);
	}

}
