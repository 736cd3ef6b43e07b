package io.github.redkit.queue.internal;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import io.github.redkit.core.internal.LuaScript;
import io.github.redkit.core.internal.NativeCommand;
import io.github.redkit.core.internal.RandomIds;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.queue.ExistingStream;
import io.github.redkit.queue.QueueMessage;
import io.github.redkit.queue.QueueSettings;
import io.github.redkit.queue.QueueStats;
import tools.jackson.databind.json.JsonMapper;

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

	private static final LuaScript<Long> LEAVE = LuaScript.load("queue_stream_leave", Long.class);

	private final RedisScriptRunner runner;

	private final StringRedisTemplate redis;

	private final String replayWindow;

	/**
	 * This instance's consumer in every queue's group: XAUTOCLAIM gives an expired entry
	 * to a consumer that is taking, so a live one.
	 */
	private final String consumer = "redkit-" + RandomIds.next();

	private final JsonMapper json;

	StreamQueueStore(RedisScriptRunner runner, String replayWindow, JsonMapper json) {
		this.runner = runner;
		this.json = json;
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
		String[] args = new String[7 + 2 * done.size()];
		args[0] = group(settings);
		args[1] = this.consumer;
		args[2] = Long.toString(settings.visibilityTimeout().toMillis());
		args[3] = Integer.toString(max);
		args[4] = ackDelete(settings);
		args[5] = this.replayWindow;
		args[6] = (settings.existingStream() != null) ? "1" : "0";
		int i = 7;
		for (QueueMessage<?> message : done) {
			TakenMessage<?> taken = TakenMessage.of(message);
			args[i++] = taken.take();
			args[i++] = Integer.toString(taken.deliveries());
		}
		// named, so that the take Lettuce sends again after a reconnect answers the same
		// entries instead of reading new ones for nobody
		return this.runner.executeAsync(TAKE, keys.streamTakeKeys(RandomIds.next()), args)
			.handle((reply, ex) -> taken(queue, settings, reply, ex));
	}

	private Taken taken(String queue, QueueSettings settings, List<?> reply, Throwable ex) {
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
			ExistingStream existing = settings.existingStream();
			if (existing != null) {
				TakenMessage<Object> entry = entry(queue, existing, id, deliveries, (List<?>) reply.get(k + 2));
				boolean malformed = existing.payloadField() != null
						&& !entry.headers().containsKey(existing.payloadField());
				(malformed ? unreadable : messages).add(entry);
				continue;
			}
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
	 * An entry of a stream another application writes: its fields are the message's
	 * headers and, as a JSON object, its dead-letter element; its payload is the payload
	 * field's value, or that object. An entry without the payload field is dead-lettered
	 * at once.
	 */
	private TakenMessage<Object> entry(String queue, ExistingStream existing, String id, int deliveries, List<?> flat) {
		Map<String, String> fields = new LinkedHashMap<>();
		for (int f = 0; f + 1 < flat.size(); f += 2) {
			fields.put(String.valueOf(flat.get(f)), String.valueOf(flat.get(f + 1)));
		}
		String whole = this.json.writeValueAsString(fields);
		String field = existing.payloadField();
		String payload = (field == null) ? whole : fields.getOrDefault(field, "");
		return new TakenMessage<>(queue,
				new Envelope(id, deliveries, payload, whole, Collections.unmodifiableMap(fields)), id, null);
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

	CompletableFuture<Boolean> ack(QueueKeys keys, QueueSettings settings, TakenMessage<?> message) {
		return this.runner
			.executeAsync(ACK, keys.streamSettleKeys(RandomIds.next()), group(settings), ackDelete(settings),
					message.take(), Integer.toString(message.deliveries()), this.replayWindow)
			.thenApply((acked) -> acked != null && acked == 1L);
	}

	/**
	 * Sets how long ago the take counts as delivered: XAUTOCLAIM claims it again once
	 * that reaches the visibility timeout. A take made claimable at once (a release)
	 * opens the claim scan, so that the next take hands it out first.
	 */
	CompletableFuture<Boolean> idle(QueueKeys keys, QueueSettings settings, TakenMessage<?> message, long idleMillis,
			int deliveries) {
		boolean now = idleMillis >= settings.visibilityTimeout().toMillis();
		return this.runner
			.executeAsync(IDLE, keys.streamIdleKeys(RandomIds.next()), group(settings), this.consumer, message.take(),
					Integer.toString(message.deliveries()), Long.toString(Math.max(0, idleMillis)),
					Integer.toString(Math.max(0, deliveries)), this.replayWindow, now ? "1" : "0")
			.thenApply((done) -> done != null && done == 1L);
	}

	CompletableFuture<Long> fail(QueueKeys keys, QueueSettings settings, TakenMessage<?> message, String mode,
			long backoffMillis, String error) {
		long idle = Math.max(0, settings.visibilityTimeout().toMillis() - backoffMillis);
		return this.runner.executeAsync(FAIL, keys.streamFailKeys(RandomIds.next()), group(settings), this.consumer,
				ackDelete(settings), message.take(), Integer.toString(message.deliveries()), mode, Long.toString(idle),
				message.id(), message.envelope().raw(), error, Long.toString(settings.deadLetterRetention().toMillis()),
				this.replayWindow);
	}

	long requeue(QueueKeys keys, String id, int batch) {
		Long moved = this.runner.execute(REQUEUE, keys.streamDeadKeys(RandomIds.next()), id, Integer.toString(batch),
				this.replayWindow);
		return (moved != null) ? moved : 0;
	}

	/**
	 * Takes this instance's consumer out of the queue's group if nothing is pending for
	 * it: a stopped instance leaves no consumer behind in {@code XINFO CONSUMERS}.
	 * @return whether it left (or was not there)
	 */
	boolean leave(QueueKeys keys, QueueSettings settings) {
		Long left = this.runner.execute(LEAVE, List.of(keys.stream()), group(settings), this.consumer);
		return left != null && left == 1L;
	}

	/**
	 * This instance's consumer name in every group it reads.
	 * @return the name
	 */
	String consumer() {
		return this.consumer;
	}

	/**
	 * Counts: ready = entries not yet delivered (the stream holds only what is ready or
	 * in flight), in flight = the group's pending entries.
	 */
	QueueStats stats(QueueKeys keys, QueueSettings settings) {
		String stream = keys.stream();
		if (settings.existingStream() != null) {
			return existingStats(keys, settings);
		}
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

	/**
	 * A stream another application writes keeps what was acknowledged: ready = the
	 * group's lag (entries not delivered to it yet; Redis 7+, else 0), in flight = its
	 * pending entries; no oldest age.
	 */
	private QueueStats existingStats(QueueKeys keys, QueueSettings settings) {
		String group = group(settings);
		long pending = 0;
		long lag = 0;
		try {
			PendingMessagesSummary summary = this.redis.opsForStream().pending(keys.stream(), group);
			pending = (summary != null) ? summary.getTotalPendingMessages() : 0;
			for (XInfoGroup info : this.redis.opsForStream().groups(keys.stream())) {
				if (group.equals(info.groupName()) && info.getRaw().get("lag") instanceof Number number) {
					lag = number.longValue();
				}
			}
		}
		catch (DataAccessException ex) {
			// no stream or no group yet: nothing to count
		}
		Long dead = this.redis.opsForZSet().zCard(keys.deadIndex());
		return new QueueStats(lag, 0, pending, (dead != null) ? dead : 0, Duration.ZERO);
	}

	static String group(QueueSettings settings) {
		ExistingStream existing = settings.existingStream();
		return (existing != null) ? existing.group() : GROUP;
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

	private String ackDelete(QueueSettings settings) {
		if (settings.existingStream() != null) {
			return "keep";
		}
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
