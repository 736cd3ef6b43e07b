package io.github.redkit.queue.internal;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import io.github.redkit.core.internal.LuaScript;
import io.github.redkit.core.internal.NativeCommand;
import io.github.redkit.core.internal.RandomIds;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.queue.QueueMessage;
import io.github.redkit.queue.QueueSettings;
import io.github.redkit.queue.QueueStats;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.InvalidDataAccessApiUsageException;
import org.springframework.data.domain.Range;
import org.springframework.data.redis.connection.Limit;
import org.springframework.data.redis.connection.stream.MapRecord;
import org.springframework.data.redis.connection.stream.PendingMessagesSummary;
import org.springframework.data.redis.connection.stream.StreamInfo.XInfoGroup;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The stream store of a queue: its messages are entries of one stream (field {@code e},
 * the element a list queue would hold) read by one consumer group. The template decides
 * (what a failure does, how long a backoff is, which messages to acknowledge) and this
 * store applies each decision in one call; a take of an entry is its id and the delivery
 * count the group keeps for it.
 */
final class StreamQueueStore {

	/** The consumer group every Redkit instance reads a queue's stream with. */
	static final String GROUP = "redkit";

	private static final LuaScript<Long> SEND = LuaScript.load("queue_stream_send", Long.class);

	private static final LuaScript<List> TAKE = LuaScript.load("queue_stream_take", List.class);

	private static final LuaScript<Long> ACK = LuaScript.load("queue_stream_ack", Long.class);

	private static final LuaScript<Long> IDLE = LuaScript.load("queue_stream_idle", Long.class);

	private static final LuaScript<Long> FAIL = LuaScript.load("queue_stream_fail", Long.class);

	private static final LuaScript<Long> REQUEUE = LuaScript.load("queue_stream_requeue", Long.class);

	private final RedisScriptRunner runner;

	private final StringRedisTemplate redis;

	private final String replayWindow;

	/**
	 * This instance's consumer in every queue's group: XAUTOCLAIM gives an expired entry
	 * to a consumer that is taking, so a live one.
	 */
	private final String consumer = "redkit-" + RandomIds.next();

	StreamQueueStore(RedisScriptRunner runner, String replayWindow) {
		this.runner = runner;
		this.redis = runner.template();
		this.replayWindow = replayWindow;
	}

	CompletableFuture<Long> push(QueueKeys keys, QueueSettings settings, List<Envelope> envelopes) {
		String[] args = new String[envelopes.size() + 2];
		args[0] = this.replayWindow;
		args[1] = Long.toString(settings.maxLength());
		for (int i = 0; i < envelopes.size(); i++) {
			args[i + 2] = envelopes.get(i).raw();
		}
		return this.runner.executeAsync(SEND, keys.streamSendKeys(envelopes.get(0).id()), args);
	}

	/**
	 * Acknowledges {@code done} and takes up to {@code max} entries, in one script call.
	 */
	CompletableFuture<Taken> take(String queue, QueueKeys keys, QueueSettings settings,
			Collection<? extends QueueMessage<?>> done, int max) {
		String[] args = new String[6 + 2 * done.size()];
		args[0] = GROUP;
		args[1] = this.consumer;
		args[2] = Long.toString(settings.visibilityTimeout().toMillis());
		args[3] = Integer.toString(max);
		args[4] = ackDelete();
		args[5] = this.replayWindow;
		int i = 6;
		for (QueueMessage<?> message : done) {
			TakenMessage<?> taken = TakenMessage.of(message);
			args[i++] = taken.take();
			args[i++] = Integer.toString(taken.deliveries());
		}
		// named, so that the take Lettuce sends again after a reconnect answers the same
		// entries instead of reading new ones for nobody
		return this.runner.executeAsync(TAKE, keys.streamTakeKeys(RandomIds.next()), args)
			.handle((reply, ex) -> taken(queue, reply, ex));
	}

	private Taken taken(String queue, List<?> reply, Throwable ex) {
		if (ex != null) {
			throw new CompletionException(olderServer(queue, ex));
		}
		long acked = ((Number) reply.get(0)).longValue();
		long waitMillis = ((Number) reply.get(1)).longValue();
		List<TakenMessage<Object>> messages = new ArrayList<>();
		List<TakenMessage<Object>> unreadable = new ArrayList<>(0);
		for (int k = 2; k + 2 < reply.size(); k += 3) {
			String id = String.valueOf(reply.get(k));
			int deliveries = ((Number) reply.get(k + 1)).intValue();
			String raw = String.valueOf(reply.get(k + 2));
			Envelope envelope = Envelope.tryParse(raw);
			if (envelope != null) {
				messages.add(new TakenMessage<>(queue, envelope.withDeliveries(deliveries), id, null));
			}
			else {
				Envelope foreign = Envelope.unreadable(raw);
				unreadable.add(new TakenMessage<>(queue,
						new Envelope(foreign.id(), deliveries, foreign.json(), foreign.raw(), Map.of()), id, null));
			}
		}
		return new Taken(messages, unreadable, acked, waitMillis);
	}

	/**
	 * A server without XAUTOCLAIM (before Redis 6.2) cannot redeliver: say so, naming the
	 * property, instead of the server's "unknown command".
	 */
	private static Throwable olderServer(String queue, Throwable ex) {
		Throwable cause = (ex instanceof CompletionException && ex.getCause() != null) ? ex.getCause() : ex;
		String message = String.valueOf(cause.getMessage());
		if (message.contains("XAUTOCLAIM") || message.contains("xautoclaim")) {
			return new InvalidDataAccessApiUsageException("Queue '" + queue + "' is kept in a stream (redkit.queue"
					+ ".queues." + queue + ".store=stream), which needs Redis 6.2 or later (XAUTOCLAIM); use the list"
					+ " store on this server", cause);
		}
		return cause;
	}

	CompletableFuture<Boolean> ack(QueueKeys keys, TakenMessage<?> message) {
		return this.runner
			.executeAsync(ACK, keys.streamSettleKeys(RandomIds.next()), GROUP, ackDelete(), message.take(),
					Integer.toString(message.deliveries()), this.replayWindow)
			.thenApply((acked) -> acked != null && acked == 1L);
	}

	/**
	 * Sets how long ago the take counts as delivered: XAUTOCLAIM claims it again once
	 * that reaches the visibility timeout.
	 */
	CompletableFuture<Boolean> idle(QueueKeys keys, TakenMessage<?> message, long idleMillis, int deliveries) {
		return this.runner
			.executeAsync(IDLE, keys.streamSettleKeys(RandomIds.next()), GROUP, this.consumer, message.take(),
					Integer.toString(message.deliveries()), Long.toString(Math.max(0, idleMillis)),
					Integer.toString(Math.max(0, deliveries)), this.replayWindow)
			.thenApply((done) -> done != null && done == 1L);
	}

	CompletableFuture<Long> fail(QueueKeys keys, QueueSettings settings, TakenMessage<?> message, String mode,
			long backoffMillis, String error) {
		long idle = Math.max(0, settings.visibilityTimeout().toMillis() - backoffMillis);
		return this.runner.executeAsync(FAIL, keys.streamFailKeys(RandomIds.next()), GROUP, this.consumer, ackDelete(),
				message.take(), Integer.toString(message.deliveries()), mode, Long.toString(idle), message.id(),
				message.envelope().raw(), error, Long.toString(settings.deadLetterRetention().toMillis()),
				this.replayWindow);
	}

	long requeue(QueueKeys keys, String id, int batch) {
		Long moved = this.runner.execute(REQUEUE, keys.streamDeadKeys(RandomIds.next()), id, Integer.toString(batch),
				this.replayWindow);
		return (moved != null) ? moved : 0;
	}

	/**
	 * Counts: ready = entries not yet delivered (the stream holds only what is ready or
	 * in flight), in flight = the group's pending entries.
	 */
	QueueStats stats(QueueKeys keys) {
		String stream = keys.stream();
		Long length = this.redis.opsForStream().size(stream);
		long entries = (length != null) ? length : 0;
		long pending = 0;
		String lastDelivered = "0-0";
		if (entries > 0) {
			try {
				PendingMessagesSummary summary = this.redis.opsForStream().pending(stream, GROUP);
				pending = (summary != null) ? summary.getTotalPendingMessages() : 0;
				for (XInfoGroup group : this.redis.opsForStream().groups(stream)) {
					if (GROUP.equals(group.groupName())) {
						lastDelivered = group.lastDeliveredId();
					}
				}
			}
			catch (DataAccessException ex) {
				// no group yet: nothing was taken, every entry is ready
			}
		}
		Long dead = this.redis.opsForZSet().zCard(keys.deadIndex());
		long ready = Math.max(0, entries - pending);
		return new QueueStats(ready, 0, pending, (dead != null) ? dead : 0,
				(ready > 0) ? oldestAge(stream, lastDelivered) : Duration.ZERO);
	}

	private Duration oldestAge(String stream, String lastDelivered) {
		List<MapRecord<String, Object, Object>> head = this.redis.opsForStream()
			.range(stream, Range.rightUnbounded(Range.Bound.exclusive(lastDelivered)), Limit.limit().count(1));
		if (head == null || head.isEmpty() || !(head.get(0).getValue().get("e") instanceof String raw)) {
			return Duration.ZERO;
		}
		Instant sent = Envelope.sentAt(raw.substring(0, Math.max(0, raw.indexOf('|'))));
		Long now = this.redis.execute((RedisCallback<Long>) (connection) -> connection.serverCommands().time());
		if (sent.equals(Instant.EPOCH) || now == null) {
			return Duration.ZERO;
		}
		return Duration.ofMillis(Math.max(0, now - sent.toEpochMilli()));
	}

	private String ackDelete() {
		return this.runner.nativeCommands().contains(NativeCommand.ACK_DELETE) ? "1" : "0";
	}

	/**
	 * What a take found.
	 *
	 * @param messages the readable messages taken (no payload yet)
	 * @param unreadable the entries that are not Redkit messages, to dead-letter at once
	 * @param acked how many of the messages to acknowledge were acknowledged
	 * @param waitMillis when none was taken: how long until a pending entry may be
	 * claimed again ({@code -1} = none pending)
	 */
	record Taken(List<TakenMessage<Object>> messages, List<TakenMessage<Object>> unreadable, long acked,
			long waitMillis) {

	}

}
