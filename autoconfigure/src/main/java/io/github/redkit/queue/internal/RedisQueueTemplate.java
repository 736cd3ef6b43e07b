package io.github.redkit.queue.internal;

import java.lang.reflect.Type;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;

import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservationContext;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.RedkitOutcomes;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.core.internal.ReplayWindow;
import io.github.redkit.queue.DeadLetter;
import io.github.redkit.queue.ExistingStream;
import io.github.redkit.queue.FailureOutcome;
import io.github.redkit.queue.QueueMessage;
import io.github.redkit.queue.QueueReceiver;
import io.github.redkit.queue.QueueSettings;
import io.github.redkit.queue.QueueStats;
import io.github.redkit.queue.QueueStore;
import io.github.redkit.queue.QueueTemplate;
import io.github.redkit.queue.RedkitQueueSendContext;
import io.github.redkit.queue.internal.QueueClaims.Claim;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.util.Assert;

/**
 * The Redis implementation of {@link QueueTemplate}; as a {@link QueueReceiver} it also
 * gives listener containers messages of generic payload types and wait hints.
 */
public class RedisQueueTemplate implements QueueTemplate, QueueReceiver {

	private static final Log logger = LogFactory.getLog(RedisQueueTemplate.class);

	/**
	 * A failed send keeps no outcome, only its error: a send's outcome says where the
	 * message went.
	 */
	private static final RedkitOutcomes<Object> SENT = RedkitOutcomes.of((sent) -> "sent").onFailure((ex) -> null);

	private static final RedkitOutcomes<Boolean> SCHEDULED = RedkitOutcomes
		.of((Boolean added) -> added ? "scheduled" : "collapsed")
		.onFailure((ex) -> null);

	/** Whether it collapsed is known later, once Redis answered. */
	private static final RedkitOutcomes<Object> SCHEDULED_LATER = RedkitOutcomes.of((sent) -> "scheduled")
		.onFailure((ex) -> null);

	private static final int SEND_CHUNK = 1000;

	/**
	 * A queue keeps no records of its callers' own ids for longer: nothing caps its
	 * replay window.
	 */
	private static final Duration NO_CAP = ChronoUnit.FOREVER.getDuration();

	/**
	 * How many messages one take hands out at most.
	 */
	static final int MAX_BATCH = QueueSettings.MAX_PREFETCH;

	/**
	 * Every call runs on Lettuce's asynchronous API (cheaper per call than the template's
	 * script executor, and what the reactive face sends too); the client's own command
	 * timeout normally answers first.
	 */
	private static final Duration CLAIM_TIMEOUT = Duration.ofSeconds(60);

	private final RedisScriptRunner runner;

	private final StringRedisTemplate redis;

	private final RedisKeyspace keyspace;

	private final JsonMapper json;

	private final Function<String, QueueSettings> settings;

	private final QueueEvents events;

	private final Map<String, QueueKeys> keys = new ConcurrentHashMap<>();

	private final RedkitObservations observations;

	/**
	 * The stream store of the queues configured with {@code store: stream}.
	 */
	private final StreamQueueStore streams;

	/**
	 * The list store of the other queues.
	 */
	private final ListQueueStore lists;

	/**
	 * The takes, through either store.
	 */
	private final QueueClaims claims;

	/**
	 * The acknowledgements, extends, failures and give-backs, through either store.
	 */
	private final QueueSettler settler;

	/**
	 * The dead letters, kept alike by both stores.
	 */
	private final QueueDeadLetters deadLetters;

	/**
	 * Creates a template.
	 * @param runner the script runner
	 * @param keyspace the keyspace
	 * @param json the JSON mapper
	 * @param settings the settings of each queue by name
	 * @param metrics where acks and failures are recorded
	 * @param observations where sends are observed (as {@code redkit.queue.send}); the
	 * trace context of each send travels in its messages' headers
	 */
	public RedisQueueTemplate(RedisScriptRunner runner, RedisKeyspace keyspace, JsonMapper json,
			Function<String, QueueSettings> settings, RedkitMetrics metrics, RedkitObservations observations) {
		Assert.notNull(observations, "observations must not be null");
		this.observations = observations;
		this.runner = runner;
		this.redis = runner.template();
		this.keyspace = keyspace;
		this.json = json;
		this.settings = settings;
		this.events = new QueueEvents(metrics);
		// how long (ms) the record of a call applied once is kept: a copy of the call the
		// client sends again after a reconnect arrives within it
		String replayWindow = Long.toString(
				ReplayWindow.of(ReplayWindow.commandTimeout(this.redis.getConnectionFactory()), CLAIM_TIMEOUT, NO_CAP)
					.toMillis());
		this.streams = new StreamQueueStore(runner, replayWindow, json);
		this.lists = new ListQueueStore(runner, replayWindow);
		QueueStores stores = new QueueStores(this.lists, this.streams, this::settings, this::keys);
		this.claims = new QueueClaims(stores, this.events, (message, problem) -> failAsync(message, problem, true));
		this.settler = new QueueSettler(stores, this.events);
		this.deadLetters = new QueueDeadLetters(this.redis, stores);
	}

	@Override
	public void send(String queue, Object payload) {
		Map<String, String> headers = new LinkedHashMap<>();
		this.observations.observe(sending(queue, headers), () -> {
			// one script call (a contract QueueTemplateTests holds), the reactive face's
			RedisScriptRunner.await(push(queue, List.of(envelope(payload, headers))), CLAIM_TIMEOUT,
					ListQueueStore.SEND.name());
			return queue;
		}, SENT);
	}

	/**
	 * The context of a send, made only when something observes: the tracing handler
	 * writes the trace context into the headers.
	 */
	private static Supplier<RedkitObservationContext> sending(String queue, Map<String, String> headers) {
		return () -> new RedkitQueueSendContext(queue, headers);
	}

	/**
	 * Sends a message without waiting for Redis: the reactive face's send. The send is
	 * observed until it is handed to the connection (an observation in scope must end on
	 * the thread that started it); its trace context travels in the headers as usual.
	 * @param queue the queue name
	 * @param payload the payload, written as JSON
	 * @return completed once Redis has appended it
	 */
	public CompletableFuture<Void> sendAsync(String queue, Object payload) {
		Map<String, String> headers = new LinkedHashMap<>();
		try {
			return this.observations.observe(sending(queue, headers),
					() -> push(queue, List.of(envelope(payload, headers))).thenApply((length) -> (Void) null), SENT);
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	/**
	 * Appends messages once: the send's record is named after its first message's id, so
	 * that the same call sent again by the client enqueues nothing more.
	 */
	private CompletableFuture<Long> push(String queue, List<Envelope> envelopes) {
		if (isStream(queue)) {
			ExistingStreams.refuseWrites(queue, settings(queue).existingStream(), "sends to it");
			return this.streams.push(keys(queue), settings(queue), envelopes);
		}
		return this.lists.push(keys(queue), envelopes);
	}

	@Override
	public void sendAll(String queue, Collection<?> payloads) {
		if (payloads.isEmpty()) {
			return;
		}
		Map<String, String> headers = new LinkedHashMap<>();
		this.observations.observe(sending(queue, headers), () -> {
			List<Envelope> envelopes = new ArrayList<>(payloads.size());
			payloads.forEach((payload) -> envelopes.add(envelope(payload, headers)));
			// one script call per chunk, each applied once, sent together on the
			// connection (one round trip for a sendAll of up to SEND_CHUNK messages)
			List<CompletableFuture<Long>> chunks = new ArrayList<>();
			for (int from = 0; from < envelopes.size(); from += SEND_CHUNK) {
				chunks.add(push(queue, envelopes.subList(from, Math.min(envelopes.size(), from + SEND_CHUNK))));
			}
			RedisScriptRunner.await(CompletableFuture.allOf(chunks.toArray(CompletableFuture[]::new)), CLAIM_TIMEOUT,
					ListQueueStore.SEND.name());
			return queue;
		}, SENT);
	}

	@Override
	public boolean sendDelayed(String queue, Object payload, Duration delay) {
		Assert.isTrue(delay != null && !delay.isNegative(), "delay must not be null or negative");
		Map<String, String> headers = new LinkedHashMap<>();
		return this.observations.observe(sending(queue, headers), () -> RedisScriptRunner
			.await(delay(queue, envelope(payload, headers), delay), CLAIM_TIMEOUT, ListQueueStore.DELAY.name()),
				SCHEDULED);
	}

	/**
	 * Schedules a message without waiting for Redis: the reactive face's delayed send,
	 * observed like {@link #sendAsync}.
	 * @param queue the queue name
	 * @param payload the payload, written as JSON
	 * @param delay the delay
	 * @return {@code false} when it collapsed with a pending equal payload
	 */
	public CompletableFuture<Boolean> sendDelayedAsync(String queue, Object payload, Duration delay) {
		Map<String, String> headers = new LinkedHashMap<>();
		try {
			return this.observations.observe(sending(queue, headers), () -> {
				Assert.isTrue(delay != null && !delay.isNegative(), "delay must not be null or negative");
				return delay(queue, envelope(payload, headers), delay);
			}, SCHEDULED_LATER);
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	private CompletableFuture<Boolean> delay(String queue, Envelope envelope, Duration delay) {
		if (isStream(queue)) {
			throw new IllegalArgumentException("queue '" + queue + "' is kept in a stream (redkit.queue.queues." + queue
					+ ".store=stream), which has no delayed messages: send it now, or keep the queue in the list store");
		}
		return this.lists.delay(keys(queue), settings(queue), envelope, delay);
	}

	@Override
	public long size(String queue) {
		if (isStream(queue)) {
			return this.streams.stats(keys(queue), settings(queue)).ready();
		}
		return this.lists.size(keys(queue));
	}

	/**
	 * Counts, read at one instant in one script.
	 */
	@Override
	public QueueStats stats(String queue) {
		QueueKeys k = keys(queue);
		return isStream(queue) ? this.streams.stats(k, settings(queue)) : this.lists.stats(k);
	}

	/**
	 * What an operator sees of a queue beyond its {@link #stats(String) counts}: its
	 * store and, for a stream queue, its group's consumers and the age of its oldest
	 * message in flight.
	 * @param queue the queue name
	 * @return the details, by name
	 */
	public Map<String, Object> details(String queue) {
		return isStream(queue) ? this.streams.details(keys(queue), settings(queue)) : Map.of("store", "list");
	}

	@Override
	public <T> Optional<QueueMessage<T>> receive(String queue, Class<T> type) {
		Claim claim = claim(queue, List.of(), 1);
		return claim.taken().stream().findFirst().map((taken) -> read(taken, type));
	}

	@Override
	public <T> Optional<QueueMessage<T>> ackAndReceive(QueueMessage<?> done, Class<T> type) {
		Claim claim = claim(done.queue(), List.of(done), 1);
		return claim.taken().stream().findFirst().map((taken) -> read(taken, type));
	}

	@Override
	public <T> List<QueueMessage<T>> receive(String queue, Class<T> type, int max) {
		return ackAndReceive(List.of(), queue, type, max);
	}

	@Override
	public <T> List<QueueMessage<T>> ackAndReceive(Collection<? extends QueueMessage<?>> done, String queue,
			Class<T> type, int max) {
		Claim claim = claim(queue, done, max);
		List<QueueMessage<T>> messages = new ArrayList<>(claim.taken().size());
		claim.taken().forEach((taken) -> messages.add(read(taken, type)));
		return messages;
	}

	@Override
	public boolean ack(QueueMessage<?> message) {
		return RedisScriptRunner.await(ackAsync(message), CLAIM_TIMEOUT, ListQueueStore.ACK.name());
	}

	public CompletableFuture<Boolean> ackAsync(QueueMessage<?> message) {
		return this.settler.ack(message);
	}

	@Override
	public boolean extend(QueueMessage<?> message, Duration visibility) {
		return RedisScriptRunner.await(extendAsync(message, visibility), CLAIM_TIMEOUT, ListQueueStore.EXTEND.name());
	}

	/**
	 * Extends a message's visibility without waiting for Redis: the reactive face's
	 * extend and the listener consumers' heartbeat.
	 * @param message the message
	 * @param visibility how long it stays invisible, from now on the Redis clock
	 * @return {@code false} when its take was lost
	 */
	public CompletableFuture<Boolean> extendAsync(QueueMessage<?> message, Duration visibility) {
		return this.settler.extend(message, visibility);
	}

	@Override
	public Receipt take(String queue, Type payloadType, @Nullable QueueMessage<?> done) {
		Batch batch = take(queue, payloadType, (done != null) ? List.of(done) : List.of(), 1);
		return batch.messages().isEmpty() ? new Receipt(null, batch.readyIn())
				: new Receipt(batch.messages().get(0), null);
	}

	@Override
	public Batch take(String queue, Type payloadType, List<? extends QueueMessage<?>> done, int max) {
		Claim claim = claim(queue, done, max);
		if (claim.taken().isEmpty()) {
			return new Batch(List.of(), (claim.waitMillis() >= 0) ? Duration.ofMillis(claim.waitMillis()) : null);
		}
		List<QueueMessage<Object>> messages = new ArrayList<>(claim.taken().size());
		for (TakenMessage<Object> taken : claim.taken()) {
			try {
				messages.add(read(taken, payloadType));
			}
			catch (RuntimeException ex) {
				// settled like a failure, so that it cannot block the queue; not waited
				// for: a caller interrupted meanwhile (a stop giving the take up) would
				// lose the rest of the batch, neither handed out nor given back
				failAsync(taken, ex, false).whenComplete((outcome, failure) -> {
					if (failure != null) {
						logger.warn("Cannot report unreadable message " + taken.id() + " of queue '" + queue
								+ "'; it comes back after its visibility timeout", failure);
					}
				});
			}
		}
		return new Batch(messages, messages.isEmpty() ? Duration.ZERO : null);
	}

	@Override
	public FailureOutcome fail(QueueMessage<?> message, Throwable error) {
		return RedisScriptRunner.await(failAsync(message, error, false), CLAIM_TIMEOUT, ListQueueStore.FAIL.name());
	}

	/**
	 * Reports a failed message without waiting for Redis.
	 * @param message the message
	 * @param error why
	 * @param exhausted whether to dead-letter (or drop) it now instead of retrying it
	 * @return what happened to it
	 */
	public CompletableFuture<FailureOutcome> failAsync(QueueMessage<?> message, Throwable error, boolean exhausted) {
		return this.settler.fail(message, error, exhausted);
	}

	@Override
	public boolean release(QueueMessage<?> message) {
		return RedisScriptRunner.await(releaseAsync(message), CLAIM_TIMEOUT, ListQueueStore.RELEASE.name());
	}

	public CompletableFuture<Boolean> releaseAsync(QueueMessage<?> message) {
		return this.settler.release(message);
	}

	@Override
	public List<DeadLetter> deadLetters(String queue, int limit) {
		return this.deadLetters.list(queue, limit);
	}

	@Override
	public boolean requeueDeadLetter(String queue, String id) {
		return this.deadLetters.requeue(queue, id);
	}

	@Override
	public long requeueDeadLetters(String queue) {
		return this.deadLetters.requeueAll(queue);
	}

	/**
	 * Acknowledges handled messages and takes up to {@code max} (reaping expired and due
	 * ones first, unless the queue's next-due hint says none is), without waiting, in one
	 * script call.
	 * @param queue the queue name
	 * @param done messages of this queue to acknowledge first, possibly none
	 * @param max how many to take at most
	 * @return the claimed envelopes, or how long until something may become ready
	 */
	private Claim claim(String queue, Collection<? extends QueueMessage<?>> done, int max) {
		Claim claim = startClaim(queue, done, max);
		while (claim.taken().isEmpty() && !claim.unreadable().isEmpty()) {
			// only unreadable elements, dead-lettered: an empty answer would say the
			// queue is empty
			claim = startClaim(queue, List.of(), max);
		}
		return claim;
	}

	/**
	 * Sends one claim and waits for it; a listener consumer's take starts it under the
	 * consumer's lock, and none once its stop began ({@link ConsumerCalls#startTake}).
	 * @return the claim, or nothing taken and nothing pending when the stop began
	 */
	private Claim startClaim(String queue, Collection<? extends QueueMessage<?>> done, int max) {
		CompletableFuture<Claim> started = ConsumerCalls.startTake(() -> this.claims.claimAsync(queue, done, max));
		if (started == null) {
			return new Claim(List.of(), -1, List.of());
		}
		return RedisScriptRunner.await(started, CLAIM_TIMEOUT, ListQueueStore.CLAIM.name());
	}

	/**
	 * Takes up to {@code max} messages without waiting for Redis: the reactive consumer's
	 * take.
	 * @param <T> the payload type
	 * @param queue the queue name
	 * @param type the payload type
	 * @param max how many at most
	 * @return the messages, or how long until one may become ready
	 */
	<T> CompletableFuture<Taken<T>> takeAsync(String queue, Class<T> type, int max) {
		return this.claims.claimAsync(queue, List.of(), max).thenApply((claim) -> {
			List<QueueMessage<T>> messages = new ArrayList<>(claim.taken().size());
			for (TakenMessage<Object> taken : claim.taken()) {
				try {
					messages.add(read(taken, type));
				}
				catch (RuntimeException ex) {
					// settled like a failure, so that it cannot block the queue
					failAsync(taken, ex, false);
				}
			}
			return new Taken<>(messages, claim.taken().size() + claim.unreadable().size(), claim.waitMillis());
		});
	}

	/**
	 * Takes this instance's consumer out of the group of a stream queue when nothing is
	 * pending for it: what a graceful stop does once its listeners are done.
	 * @param queue the queue name
	 * @return whether the consumer left (or was not there; always for a list queue)
	 */
	public boolean leaveGroup(String queue) {
		return RedisScriptRunner.await(leaveGroupAsync(queue), CLAIM_TIMEOUT, "queue_stream_leave");
	}

	/**
	 * Takes this instance's consumer out of the group of a stream queue when nothing is
	 * pending for it, without waiting for Redis: what a stop does that cannot wait (a
	 * consumer still blocked on Redis, a take given up). Either way the consumers of
	 * instances that ended, holding nothing and idle for the visibility timeout, leave
	 * too.
	 * @param queue the queue name
	 * @return whether the consumer left (or was not there; always for a list queue)
	 */
	CompletableFuture<Boolean> leaveGroupAsync(String queue) {
		return isStream(queue) ? this.streams.leave(keys(queue), settings(queue))
				: CompletableFuture.completedFuture(true);
	}

	/**
	 * Checks a queue of the stream store, once at start-up: the server must be Redis 6.2
	 * or later; a queue that reads a stream another application writes must find a stream
	 * at its key (or nothing, when the group is to be created), and its group must exist
	 * or is created from {@code start-from} (with the stream, if missing) when asked; an
	 * existing group keeps its place. A list queue is not checked.
	 * @param queue the queue name
	 * @throws IllegalStateException naming the property that cannot be honoured
	 */
	public void prepareStreamQueue(String queue) {
		if (!isStream(queue)) {
			return;
		}
		this.streams.requireServer(queue);
		ExistingStream existing = settings(queue).existingStream();
		if (existing == null) {
			return;
		}
		ExistingStreams.prepare(this.redis, queue, existing);
	}

	/**
	 * Checks once at start-up that the server can hold stream queues (Redis 6.2 or
	 * later), for the queues that are streams through a default: those no property names
	 * (a listener's, a template's) are checked too.
	 * @param property the property that chose the stream store, named in the refusal
	 * @throws IllegalStateException naming the property and the version
	 */
	public void requireStreamServer(String property) {
		this.streams.requireServerFor(property);
	}

	@SuppressWarnings("unchecked")
	private <T> QueueMessage<T> read(TakenMessage<?> taken, Type type) {
		ExistingStream existing = settings(taken.queue()).existingStream();
		if (existing != null && existing.payloadField() != null && type == String.class) {
			// the field's text as it is: another application's values are seldom JSON
			// strings
			return (QueueMessage<T>) taken.withPayload(taken.envelope().json());
		}
		JavaType javaType = this.json.getTypeFactory().constructType(type);
		T payload = this.json.readValue(taken.envelope().json(), javaType);
		return taken.withPayload(payload);
	}

	private boolean isStream(String queue) {
		return settings(queue).store() == QueueStore.STREAM;
	}

	private QueueKeys keys(String queue) {
		return this.keys.computeIfAbsent(queue, (name) -> QueueKeys.of(this.keyspace, name, settings(name)));
	}

	private QueueSettings settings(String queue) {
		return this.settings.apply(queue);
	}

	private Envelope envelope(Object payload, Map<String, String> headers) {
		Assert.notNull(payload, "payload must not be null");
		return Envelope.create(this.json.writeValueAsString(payload), headers);
	}

	/**
	 * What an asynchronous take found.
	 *
	 * @param <T> the payload type
	 * @param messages the readable messages taken, possibly none
	 * @param taken how many were taken, the unreadable ones (failed at once) included
	 * @param waitMillis when none was taken: how long until a delayed message is due or
	 * an in-flight one expires ({@code -1} = nothing pending)
	 */
	record Taken<T>(List<QueueMessage<T>> messages, int taken, long waitMillis) {

	}

}
