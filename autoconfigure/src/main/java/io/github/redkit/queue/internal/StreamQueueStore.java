package io.github.redkit.queue.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import io.github.redkit.core.internal.LuaScript;
import io.github.redkit.core.internal.NativeCommand;
import io.github.redkit.core.internal.RandomIds;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.core.internal.ServerVersions;
import io.github.redkit.queue.ExistingStream;
import io.github.redkit.queue.QueueMessage;
import io.github.redkit.queue.QueueSettings;
import io.github.redkit.queue.QueueStats;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.InvalidDataAccessApiUsageException;
import org.springframework.data.redis.connection.stream.PendingMessagesSummary;
import org.springframework.data.redis.connection.stream.StreamInfo.XInfoConsumer;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The stream store of a queue: its messages are entries of one stream (field {@code e},
 * the element a list queue would hold) read by one consumer group. The template decides
 * (what a failure does, how long a backoff is, which messages to acknowledge) and this
 * store applies each decision in one call; a take of an entry is its id, this instance's
 * consumer that took it and the delivery count the group keeps for it: a message is
 * settled through the store that took it.
 */
final class StreamQueueStore {

	/** The consumer group every Redkit instance reads a queue's stream with. */
	static final String GROUP = "redkit";

	private static final LuaScript<Long> SEND = LuaScript.load("queue_stream_send", Long.class);

	private static final LuaScript<List> TAKE = LuaScript.load("queue_stream_take", List.class).givenUpWithItsCaller();

	private static final LuaScript<Long> ACK = LuaScript.load("queue_stream_ack", Long.class);

	private static final LuaScript<Long> IDLE = LuaScript.load("queue_stream_idle", Long.class);

	private static final LuaScript<Long> FAIL = LuaScript.load("queue_stream_fail", Long.class);

	private static final LuaScript<Long> REQUEUE = LuaScript.load("queue_stream_requeue", Long.class);

	private static final LuaScript<Long> LEAVE = LuaScript.load("queue_stream_leave", Long.class);

	private static final LuaScript<List> STATS = LuaScript.load("queue_stream_stats", List.class);

	/**
	 * What an extend or a release answers when the entry was deleted from the stream
	 * while held (a writer's trim).
	 */
	static final long TRIMMED = 2;

	/** What a retry answers when the entry was deleted from the stream while held. */
	static final long TRIMMED_RETRY = 4;

	/** 2000-01-01 in ms: an entry id before it was chosen by its writer, not XADD. */
	private static final long Y2K = 946_684_800_000L;

	private final RedisScriptRunner runner;

	private final StringRedisTemplate redis;

	private final String replayWindow;

	/**
	 * This instance's consumer in every queue's group: XAUTOCLAIM gives an expired entry
	 * to a consumer that is taking, so a live one. Its prefix tells Redkit's consumers
	 * from an application's own readers of the group, which a leave never sweeps.
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
	 * @param take the take's name: the same take sent again is answered from its record
	 */
	CompletableFuture<Taken> take(String queue, QueueKeys keys, QueueSettings settings,
			Collection<? extends QueueMessage<?>> done, int max, String take) {
		String[] args = new String[7 + 3 * done.size()];
		args[0] = group(settings);
		args[1] = this.consumer;
		args[2] = Long.toString(settings.visibilityTimeout().toMillis());
		args[3] = Integer.toString(max);
		args[4] = ackDelete(settings);
		args[5] = this.replayWindow;
		args[6] = (settings.existingStream() != null) ? "1" : "0";
		List<TakenMessage<?>> settled = new ArrayList<>(done.size());
		done.forEach((message) -> settled.add(TakenMessage.of(message)));
		// in id order: the script looks the batch up over its first and last id
		settled.sort((a, b) -> compareIds(a.take(), b.take()));
		int i = 7;
		for (TakenMessage<?> taken : settled) {
			args[i++] = taken.take();
			args[i++] = Integer.toString(taken.deliveries());
			args[i++] = held(settings, taken);
		}
		// named, so that the take Lettuce sends again after a reconnect (or the caller
		// after
		// a take not answered) answers the same entries instead of reading new ones for
		// nobody
		CompletableFuture<List> call = this.runner.executeAsync(TAKE, keys.streamTakeKeys(take), args);
		CompletableFuture<Taken> taken = call.handle((reply, ex) -> taken(queue, settings, reply, ex));
		// a caller that cancels gives the call up: not sent again after NOSCRIPT
		taken.whenComplete((reply, ex) -> call.cancel(false));
		return taken;
	}

	/**
	 * Compares stream entry ids ({@code <ms>-<seq>}, each an unsigned 64-bit number) as
	 * Redis orders them; anything else as text.
	 */
	static int compareIds(String a, String b) {
		int da = a.indexOf('-');
		int db = b.indexOf('-');
		try {
			if (da > 0 && db > 0) {
				int ms = Long.compareUnsigned(Long.parseUnsignedLong(a.substring(0, da)),
						Long.parseUnsignedLong(b.substring(0, db)));
				return (ms != 0) ? ms : Long.compareUnsigned(Long.parseUnsignedLong(a.substring(da + 1)),
						Long.parseUnsignedLong(b.substring(db + 1)));
			}
		}
		catch (NumberFormatException ex) {
			// not entry ids
		}
		return a.compareTo(b);
	}

	private Taken taken(String queue, QueueSettings settings, List<?> reply, Throwable ex) {
		if (ex != null) {
			throw new CompletionException(olderServer(queue, ex));
		}
		long acked = ((Number) reply.get(0)).longValue();
		long waitMillis = ((Number) reply.get(1)).longValue();
		Sorted sorted = new Sorted(new ArrayList<>(), new ArrayList<>(0));
		// a take sent again ends with how long the entries it hands over have been held
		// (the first one delivered them): one value after the triples
		int end = reply.size();
		long held = 0;
		if ((end - 3) % 3 == 1) {
			held = ((Number) reply.get(end - 1)).longValue();
			end--;
		}
		// the entries claimed again (id, deliveries, element or fields), then those read
		// (one delivery each)
		for (int k = 3; k + 2 < end; k += 3) {
			add(queue, settings, String.valueOf(reply.get(k)), ((Number) reply.get(k + 1)).intValue(), reply.get(k + 2),
					held, sorted);
		}
		List<?> read = (List<?>) reply.get(2);
		if (settings.existingStream() != null) {
			// XREADGROUP's own reply: id and fields
			for (Object item : read) {
				List<?> entry = (List<?>) item;
				add(queue, settings, String.valueOf(entry.get(0)), 1, entry.get(1), 0, sorted);
			}
		}
		else {
			// id, element, id, element, ...
			for (int k = 0; k + 1 < read.size(); k += 2) {
				add(queue, settings, String.valueOf(read.get(k)), 1, read.get(k + 1), 0, sorted);
			}
		}
		return new Taken(sorted.messages(), sorted.unreadable(), acked, waitMillis);
	}

	/**
	 * The messages of a take's reply, sorted into those handed out and those to
	 * dead-letter at once.
	 */
	private record Sorted(List<TakenMessage<Object>> messages, List<TakenMessage<Object>> unreadable) {

	}

	/**
	 * Adds a taken entry to the messages, or to the unreadable ones (not a Redkit
	 * element; in a stream another application writes, no payload field).
	 * @param element a Redkit queue's element, or the fields of an entry of a stream
	 * another application writes
	 * @param held how long Redis had held the entry when it handed it over
	 */
	private void add(String queue, QueueSettings settings, String id, int deliveries, Object element, long held,
			Sorted sorted) {
		List<TakenMessage<Object>> messages = sorted.messages();
		List<TakenMessage<Object>> unreadable = sorted.unreadable();
		ExistingStream existing = settings.existingStream();
		if (existing != null) {
			TakenMessage<Object> entry = entry(queue, existing, id, deliveries, (List<?>) element, held);
			boolean malformed = existing.payloadField() != null
					&& !entry.headers().containsKey(existing.payloadField());
			(malformed ? unreadable : messages).add(entry);
			return;
		}
		String raw = String.valueOf(element);
		Envelope envelope = Envelope.tryParse(raw);
		if (envelope != null) {
			messages.add(new TakenMessage<>(queue, envelope.withDeliveries(deliveries), id, null, held));
		}
		else {
			Envelope foreign = Envelope.unreadable(raw);
			unreadable.add(new TakenMessage<>(queue,
					new Envelope(foreign.id(), deliveries, foreign.json(), foreign.raw(), Map.of()), id, null, held));
		}
	}

	/**
	 * An entry of a stream another application writes: its fields are the message's
	 * headers and, as a JSON object, its dead-letter element; its payload is the payload
	 * field's value, or that object. An entry without the payload field is dead-lettered
	 * at once.
	 */
	private TakenMessage<Object> entry(String queue, ExistingStream existing, String id, int deliveries, List<?> flat,
			long held) {
		Map<String, String> fields = new LinkedHashMap<>();
		for (int f = 0; f + 1 < flat.size(); f += 2) {
			fields.put(String.valueOf(flat.get(f)), String.valueOf(flat.get(f + 1)));
		}
		String whole = this.json.writeValueAsString(fields);
		String field = existing.payloadField();
		String payload = (field == null) ? whole : fields.getOrDefault(field, "");
		return new TakenMessage<>(queue,
				new Envelope(id, deliveries, payload, whole, Collections.unmodifiableMap(fields)), id, null, held);
	}

	/**
	 * Refuses the stream store on a server older than Redis 6.2 (no XAUTOCLAIM, so
	 * nothing unacknowledged would be delivered again), at start-up: naming the property
	 * and the version read, rather than failing every take. A server that cannot be read
	 * yet is not checked: its first take says the same ({@link #olderServer}).
	 * @param queue the queue
	 */
	void requireServer(String queue) {
		requireServerFor(storeProperty(queue));
	}

	/**
	 * Refuses the stream store on a server older than Redis 6.2, naming the property that
	 * chose it (as {@link #requireServer(String)}).
	 * @param property the property and its value, such as
	 * {@code redkit.queue.defaults.store=stream}
	 */
	void requireServerFor(String property) {
		Properties info;
		try {
			info = this.redis
				.execute((RedisCallback<Properties>) (connection) -> connection.serverCommands().info("server"));
		}
		catch (DataAccessException ex) {
			return;
		}
		if (info != null) {
			requireServerFor(property, info);
		}
	}

	/**
	 * Refuses the stream store when a node is older than Redis 6.2.
	 * @param queue the queue
	 * @param info the server's {@code INFO server} fields (every node's, in a cluster)
	 * @throws IllegalStateException naming the property and the version
	 */
	static void requireServer(String queue, Properties info) {
		requireServerFor(storeProperty(queue), info);
	}

	/**
	 * Refuses the stream store, chosen by the given property, when a node is older than
	 * Redis 6.2.
	 * @param property the property and its value
	 * @param info the server's {@code INFO server} fields (every node's, in a cluster)
	 * @throws IllegalStateException naming the property and the version
	 */
	static void requireServerFor(String property, Properties info) {
		String older = ServerVersions.olderThan(info, 6, 2);
		if (older != null) {
			throw new IllegalStateException(property + " needs Redis 6.2 or later"
					+ " (XAUTOCLAIM delivers again what was not acknowledged), but the server is Redis " + older
					+ ": keep its queues in the list store (store=list) on this server");
		}
	}

	private static String storeProperty(String queue) {
		return "redkit.queue.queues." + queue + ".store=stream";
	}

	/**
	 * A server without XAUTOCLAIM (before Redis 6.2) cannot redeliver: say so, naming the
	 * property, instead of the server's "unknown command" (which names no command before
	 * Redis 7.0: the take calls nothing else a server with streams lacks).
	 */
	static Throwable olderServer(String queue, Throwable ex) {
		Throwable cause = (ex instanceof CompletionException && ex.getCause() != null) ? ex.getCause() : ex;
		StringBuilder messages = new StringBuilder();
		for (Throwable t = cause; t != null && messages.length() < 4096; t = t.getCause()) {
			messages.append(t.getMessage()).append('\n');
		}
		String message = messages.toString();
		if (message.contains("XAUTOCLAIM") || message.contains("xautoclaim")
				|| message.contains("Unknown Redis command called from Lua script")) {
			// the store may come from the queue's property or the defaults': this cannot
			// tell
			return new InvalidDataAccessApiUsageException("Queue '" + queue + "' is kept in a stream (redkit.queue"
					+ ".queues." + queue + ".store=stream, or redkit.queue.defaults.store=stream), which needs Redis"
					+ " 6.2 or later (XAUTOCLAIM); use the list store on this server", cause);
		}
		return cause;
	}

	CompletableFuture<Boolean> ack(QueueKeys keys, QueueSettings settings, TakenMessage<?> message) {
		return this.runner
			.executeAsync(ACK, keys.streamSettleKeys(RandomIds.next()), group(settings), ackDelete(settings),
					message.take(), Integer.toString(message.deliveries()), this.replayWindow, this.consumer,
					held(settings, message))
			.thenApply((acked) -> acked != null && acked == 1L);
	}

	/**
	 * The message id a take's entry must still hold to be settled: a rollback of Redis'
	 * state while its clock is behind the stream's last id gives the next message sent
	 * the entry id of one sent after the snapshot, with the same delivery count, so the
	 * entry id and count alone would let the holder of the message the rollback undid
	 * settle the other one. None ({@code ""}) for a stream another application writes
	 * (its entry id is its message id) and for an entry that is no Redkit message.
	 */
	private static String held(QueueSettings settings, TakenMessage<?> message) {
		boolean redkit = settings.existingStream() == null && message.envelope().raw().startsWith(message.id());
		return redkit ? message.id() : "";
	}

	/**
	 * Sets how long ago the take counts as delivered: XAUTOCLAIM claims it again once
	 * that reaches the visibility timeout. A take made claimable at once (a release)
	 * opens the claim scan, so that the next take hands it out first.
	 * @return 1 when done, 0 when the take was lost, {@value #TRIMMED} when its entry was
	 * deleted from the stream while held (then acknowledged)
	 */
	CompletableFuture<Long> idle(QueueKeys keys, QueueSettings settings, TakenMessage<?> message, long idleMillis,
			int deliveries) {
		boolean now = idleMillis >= settings.visibilityTimeout().toMillis();
		return this.runner.executeAsync(IDLE, keys.streamIdleKeys(RandomIds.next()), group(settings), this.consumer,
				message.take(), Integer.toString(message.deliveries()), Long.toString(Math.max(0, idleMillis)),
				Integer.toString(Math.max(0, deliveries)), this.replayWindow, now ? "1" : "0", held(settings, message))
			.thenApply((done) -> (done != null) ? done : 0L);
	}

	CompletableFuture<Long> fail(QueueKeys keys, QueueSettings settings, TakenMessage<?> message, String mode,
			long backoffMillis, String error) {
		long idle = Math.max(0, settings.visibilityTimeout().toMillis() - backoffMillis);
		return this.runner.executeAsync(FAIL, keys.streamFailKeys(RandomIds.next()), group(settings), this.consumer,
				ackDelete(settings), message.take(), Integer.toString(message.deliveries()), mode, Long.toString(idle),
				message.id(), message.envelope().raw(), error, Long.toString(settings.deadLetterRetention().toMillis()),
				this.replayWindow, held(settings, message), Long.toString(Math.max(0, backoffMillis)));
	}

	long requeue(QueueKeys keys, String id, int batch) {
		Long moved = this.runner.execute(REQUEUE, keys.streamDeadKeys(RandomIds.next()), id, Integer.toString(batch),
				this.replayWindow);
		return (moved != null) ? moved : 0;
	}

	/**
	 * Takes this instance's consumer out of the queue's group if nothing is pending for
	 * it, and the consumers of instances that ended (nothing pending, idle for the
	 * visibility timeout): stopped instances leave no consumers piling up in
	 * {@code XINFO CONSUMERS}.
	 * @return whether it left (or was not there)
	 */
	CompletableFuture<Boolean> leave(QueueKeys keys, QueueSettings settings) {
		return this.runner
			.executeAsync(LEAVE, List.of(keys.stream()), group(settings), this.consumer,
					Long.toString(settings.visibilityTimeout().toMillis()))
			.thenApply((left) -> left != null && left == 1L);
	}

	/**
	 * This instance's consumer name in every group it reads.
	 * @return the name
	 */
	String consumer() {
		return this.consumer;
	}

	/**
	 * Counts, read at one instant in one script: in flight = the group's pending entries;
	 * ready = the entries not delivered yet (Redkit's stream holds only what is ready or
	 * in flight; a stream another application writes keeps what was acknowledged: there,
	 * what the group has not read); the oldest age is that of the first entry the group
	 * has not read.
	 */
	QueueStats stats(QueueKeys keys, QueueSettings settings) {
		boolean existing = settings.existingStream() != null;
		List<?> reply = this.runner.execute(STATS, List.of(keys.stream(), keys.deadIndex()), group(settings),
				existing ? "1" : "0");
		long now = Long.parseLong(String.valueOf(reply.get(5)));
		Duration age = existing ? ageOfId(String.valueOf(reply.get(3)), now)
				: Envelope.ageOf(String.valueOf(reply.get(4)), now);
		return new QueueStats(count(reply.get(0)), 0, count(reply.get(1)), count(reply.get(2)), age);
	}

	private static long count(Object value) {
		return (value instanceof Number number) ? number.longValue() : 0;
	}

	/**
	 * An entry's age from its id, the time XADD gave it; an id chosen by the writer that
	 * is no time (before 2000) has none.
	 */
	private static Duration ageOfId(String id, long now) {
		int dash = id.indexOf('-');
		try {
			long millis = Long.parseLong((dash > 0) ? id.substring(0, dash) : id);
			return (millis < Y2K) ? Duration.ZERO : Duration.ofMillis(Math.max(0, now - millis));
		}
		catch (NumberFormatException ex) {
			return Duration.ZERO;
		}
	}

	/**
	 * What the endpoint shows of a stream queue beyond its counts: its group's consumers
	 * (each instance reads as one) with their pending entries and idle time, and the age
	 * of the oldest pending entry (from its id, the time XADD gave it).
	 */
	Map<String, Object> details(QueueKeys keys, QueueSettings settings) {
		String group = group(settings);
		List<Map<String, Object>> consumers = new ArrayList<>();
		Duration oldestInFlight = Duration.ZERO;
		try {
			for (XInfoConsumer consumer : this.redis.opsForStream().consumers(keys.stream(), group)) {
				consumers.add(Map.of("name", consumer.consumerName(), "pending", consumer.pendingCount(), "idle",
						consumer.idleTime().toString()));
			}
			PendingMessagesSummary pending = this.redis.opsForStream().pending(keys.stream(), group);
			Long now = this.redis.execute((RedisCallback<Long>) (connection) -> connection.serverCommands().time());
			if (pending != null && pending.getTotalPendingMessages() > 0 && now != null) {
				oldestInFlight = ageOfId(pending.minMessageId(), now);
			}
		}
		catch (DataAccessException ex) {
			// no stream or no group yet: nobody has taken anything
		}
		return Map.of("store", "stream", "group", group, "consumers", consumers, "oldestInFlightAge",
				oldestInFlight.toString());
	}

	static String group(QueueSettings settings) {
		ExistingStream existing = settings.existingStream();
		return (existing != null) ? existing.group() : GROUP;
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
