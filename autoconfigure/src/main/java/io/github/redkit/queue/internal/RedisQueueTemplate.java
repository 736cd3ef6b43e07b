package io.github.redkit.queue.internal;

import java.lang.reflect.Type;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;
import java.util.function.Supplier;

import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservationContext;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.RedkitOutcomes;
import io.github.redkit.core.RedkitScriptException;
import io.github.redkit.core.internal.LuaScript;
import io.github.redkit.core.internal.RandomIds;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.core.internal.ReplayWindow;
import io.github.redkit.queue.DeadLetter;
import io.github.redkit.queue.ExistingStream;
import io.github.redkit.queue.FailureOutcome;
import io.github.redkit.queue.QueueMessage;
import io.github.redkit.queue.QueueOrder;
import io.github.redkit.queue.QueueReceiver;
import io.github.redkit.queue.QueueSettings;
import io.github.redkit.queue.QueueStats;
import io.github.redkit.queue.QueueStore;
import io.github.redkit.queue.QueueTemplate;
import io.github.redkit.queue.RedkitQueueSendContext;
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

	private static final LuaScript<List> CLAIM = LuaScript.load("queue_claim", List.class).givenUpWithItsCaller();

	private static final LuaScript<Long> FAIL = LuaScript.load("queue_fail", Long.class);

	private static final LuaScript<Long> RELEASE = LuaScript.load("queue_release", Long.class);

	private static final LuaScript<Long> DELAY = LuaScript.load("queue_delay", Long.class);

	private static final LuaScript<Long> REQUEUE = LuaScript.load("queue_requeue", Long.class);

	private static final LuaScript<Long> SEND = LuaScript.load("queue_send", Long.class);

	private static final LuaScript<Long> ACK = LuaScript.load("queue_ack", Long.class);

	private static final LuaScript<List> STATS = LuaScript.load("queue_stats", List.class);

	private static final LuaScript<Long> EXTEND = LuaScript.load("queue_extend", Long.class);

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

	/**
	 * How many expired or due messages one claim moves at most: keeps the script short (a
	 * claim that moved a full batch writes no next-due hint, so the next one reaps too).
	 */
	private static final int REAP_BATCH = 100;

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

	private final TrimmedWarnings trimmedWarnings = new TrimmedWarnings(logger);

	private final StringRedisTemplate redis;

	private final RedisKeyspace keyspace;

	private final JsonMapper json;

	private final Function<String, QueueSettings> settings;

	private final QueueEvents events;

	private final Map<String, QueueKeys> keys = new ConcurrentHashMap<>();

	private final RedkitObservations observations;

	/**
	 * How long (ms) the record of a call applied once is kept: a copy of the call the
	 * client sends again after a reconnect arrives within it.
	 */
	private final String replayWindow;

	/**
	 * The stream store of the queues configured with {@code store: stream}; the others
	 * run this class's list scripts.
	 */
	private final StreamQueueStore streams;

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
		this.replayWindow = Long.toString(
				ReplayWindow.of(ReplayWindow.commandTimeout(this.redis.getConnectionFactory()), CLAIM_TIMEOUT, NO_CAP)
					.toMillis());
		this.streams = new StreamQueueStore(runner, this.replayWindow, json);
	}

	@Override
	public void send(String queue, Object payload) {
		Map<String, String> headers = new LinkedHashMap<>();
		this.observations.observe(sending(queue, headers), () -> {
			// one script call (a contract QueueTemplateTests holds), the reactive face's
			RedisScriptRunner.await(push(queue, List.of(envelope(payload, headers))), CLAIM_TIMEOUT, SEND.name());
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
			refuseExisting(queue, "sends to it");
			return this.streams.push(keys(queue), settings(queue), envelopes);
		}
		String[] args = new String[envelopes.size() + 1];
		args[0] = this.replayWindow;
		for (int i = 0; i < envelopes.size(); i++) {
			args[i + 1] = envelopes.get(i).raw();
		}
		return this.runner.executeAsync(SEND, keys(queue).sendKeys(envelopes.get(0).id()), args);
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
					SEND.name());
			return queue;
		}, SENT);
	}

	@Override
	public boolean sendDelayed(String queue, Object payload, Duration delay) {
		Assert.isTrue(delay != null && !delay.isNegative(), "delay must not be null or negative");
		Map<String, String> headers = new LinkedHashMap<>();
		return this.observations
			.observe(
					sending(queue, headers), () -> RedisScriptRunner
						.await(delay(queue, envelope(payload, headers), delay), CLAIM_TIMEOUT, DELAY.name()),
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
		QueueKeys k = keys(queue);
		return this.runner
			.executeAsync(DELAY, k.delayKeys(envelope.id()), envelope.raw(), Long.toString(delay.toMillis()),
					settings(queue).collapse().scriptValue(), this.replayWindow)
			.thenApply((scheduled) -> scheduled != null && scheduled == 1L);
	}

	@Override
	public long size(String queue) {
		if (isStream(queue)) {
			return this.streams.stats(keys(queue), settings(queue)).ready();
		}
		Long size = this.redis.opsForList().size(keys(queue).ready());
		return (size != null) ? size : 0;
	}

	/**
	 * Counts, read at one instant in one script; the oldest age is that of the first
	 * ready element.
	 */
	@Override
	public QueueStats stats(String queue) {
		QueueKeys k = keys(queue);
		if (isStream(queue)) {
			return this.streams.stats(k, settings(queue));
		}
		List<?> reply = this.runner.execute(STATS, List.of(k.ready(), k.delayed(), k.inFlight(), k.deadIndex()));
		long now = Long.parseLong(String.valueOf(reply.get(5)));
		return new QueueStats(count(reply.get(0)), count(reply.get(1)), count(reply.get(2)), count(reply.get(3)),
				Envelope.ageOf(String.valueOf(reply.get(4)), now));
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
		return RedisScriptRunner.await(ackAsync(message), CLAIM_TIMEOUT, ACK.name());
	}

	public CompletableFuture<Boolean> ackAsync(QueueMessage<?> message) {
		if (TakenMessage.of(message).trimmed()) {
			// reported and acknowledged when its extend, release or retry found it gone
			return CompletableFuture.completedFuture(false);
		}
		CompletableFuture<Long> removal = isStream(message.queue())
				? this.streams.ack(keys(message.queue()), settings(message.queue()), TakenMessage.of(message))
					.thenApply((acked) -> acked ? 1L : 0L)
				: this.runner.executeAsync(ACK, keys(message.queue()).ackKeys(RandomIds.next()),
						TakenMessage.of(message).inFlightEntry(), this.replayWindow);
		return removal.thenApply((removed) -> {
			boolean acked = removed != null && removed > 0;
			acknowledged(message.queue(), List.of(message), acked ? 1 : 0);
			return acked;
		});
	}

	/**
	 * Records acknowledgements; those that came after their take was lost are counted and
	 * logged apart: the handling they report is repeated elsewhere.
	 */
	private void acknowledged(String queue, Collection<? extends QueueMessage<?>> acks, long acked) {
		for (long n = 0; n < acked; n++) {
			this.events.processed(queue);
		}
		long late = acks.size() - acked - acks.stream().filter((ack) -> TakenMessage.of(ack).trimmed()).count();
		if (late <= 0) {
			return;
		}
		for (long n = 0; n < late; n++) {
			this.events.lateAck(queue);
		}
		String which = (acks.size() == 1) ? "Message " + acks.iterator().next().id()
				: late + " of the messages " + acks.stream().map(QueueMessage::id).toList();
		logger.warn(which + " of queue '" + queue + "' acknowledged after its visibility timeout expired and it was"
				+ " taken again: it is, or will be, delivered again (extend the visibility of long work)");
	}

	@Override
	public boolean extend(QueueMessage<?> message, Duration visibility) {
		return RedisScriptRunner.await(extendAsync(message, visibility), CLAIM_TIMEOUT, EXTEND.name());
	}

	/**
	 * Extends a message's visibility without waiting for Redis: the reactive face's
	 * extend and the listener consumers' heartbeat.
	 * @param message the message
	 * @param visibility how long it stays invisible, from now on the Redis clock
	 * @return {@code false} when its take was lost
	 */
	public CompletableFuture<Boolean> extendAsync(QueueMessage<?> message, Duration visibility) {
		Assert.isTrue(visibility != null && visibility.toMillis() > 0, "visibility must be at least 1 ms");
		if (isStream(message.queue())) {
			// XAUTOCLAIM claims what has been idle for the visibility timeout: a take can
			// be made younger, never younger than just delivered
			Duration timeout = settings(message.queue()).visibilityTimeout();
			Assert.isTrue(visibility.compareTo(timeout) <= 0,
					() -> "visibility must not exceed the visibility timeout"
							+ " of a stream queue (redkit.queue.queues." + message.queue() + ".visibility-timeout="
							+ timeout + ")");
			TakenMessage<?> taken = TakenMessage.of(message);
			return this.streams
				.idle(keys(message.queue()), settings(message.queue()), taken,
						timeout.toMillis() - visibility.toMillis(), taken.deliveries())
				.thenApply((done) -> held(taken, done));
		}
		return this.runner
			.executeAsync(EXTEND, keys(message.queue()).extendKeys(), TakenMessage.of(message).inFlightEntry(),
					Long.toString(visibility.toMillis()))
			.thenApply((extended) -> extended != null && extended == 1L);
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
		return RedisScriptRunner.await(failAsync(message, error, false), CLAIM_TIMEOUT, FAIL.name());
	}

	/**
	 * Reports a failed message without waiting for Redis.
	 * @param message the message
	 * @param error why
	 * @param exhausted whether to dead-letter (or drop) it now instead of retrying it
	 * @return what happened to it
	 */
	public CompletableFuture<FailureOutcome> failAsync(QueueMessage<?> message, Throwable error, boolean exhausted) {
		QueueSettings queue = settings(message.queue());
		boolean last = exhausted || !queue.allowsDelivery(message.deliveries() + 1);
		String mode = !last ? "retry" : queue.deadLetter() ? "dead" : "drop";
		long backoff = last ? 0 : queue.backoff().delayAfter(message.deliveries()).toMillis();
		CompletableFuture<Long> settled = isStream(message.queue())
				? this.streams.fail(keys(message.queue()), queue, TakenMessage.of(message), mode, backoff,
						describe(error))
				: this.runner.executeAsync(FAIL, keys(message.queue()).failKeys(RandomIds.next()),
						TakenMessage.of(message).envelope().raw(), mode, Long.toString(backoff), message.id(),
						describe(error), Long.toString(queue.deadLetterRetention().toMillis()),
						TakenMessage.of(message).inFlightEntry(), this.replayWindow);
		return settled.thenApply((result) -> {
			if (result != null && result == StreamQueueStore.TRIMMED_RETRY) {
				// nothing left to deliver again: lost by the trim
				this.events.failed(message.queue());
				trimmed(TakenMessage.of(message));
				return FailureOutcome.DROPPED;
			}
			FailureOutcome outcome = switch ((result != null) ? result.intValue() : 0) {
				case 1 -> FailureOutcome.RETRIED;
				case 2 -> FailureOutcome.DEAD_LETTERED;
				case 3 -> FailureOutcome.DROPPED;
				default -> FailureOutcome.NOT_OWNED;
			};
			this.events.failed(message.queue(), outcome);
			return outcome;
		});
	}

	/**
	 * What an extend or a release of a stream take answered; a take whose entry was
	 * deleted from the stream while held is reported ({@code outcome=trimmed}, and a WARN
	 * once a while) once.
	 */
	private boolean held(TakenMessage<?> taken, long done) {
		if (done == StreamQueueStore.TRIMMED) {
			trimmed(taken);
			return false;
		}
		return done == 1L;
	}

	/**
	 * A held message whose stream entry was deleted by a writer (a send's max-length
	 * trim, XTRIM, XDEL): it was acknowledged, as nothing is left to deliver.
	 */
	private void trimmed(TakenMessage<?> taken) {
		taken.markTrimmed();
		this.events.trimmed(taken.queue());
		this.trimmedWarnings.trimmed(taken.queue(), taken.id());
	}

	@Override
	public boolean release(QueueMessage<?> message) {
		return RedisScriptRunner.await(releaseAsync(message), CLAIM_TIMEOUT, RELEASE.name());
	}

	public CompletableFuture<Boolean> releaseAsync(QueueMessage<?> message) {
		QueueKeys k = keys(message.queue());
		if (isStream(message.queue())) {
			// idle for the whole timeout: the next take claims it first, and the claim
			// counts again the delivery taken back here
			TakenMessage<?> taken = TakenMessage.of(message);
			return this.streams
				.idle(k, settings(message.queue()), taken, settings(message.queue()).visibilityTimeout().toMillis(),
						taken.deliveries() - 1)
				.thenApply((done) -> held(taken, done));
		}
		return this.runner
			.executeAsync(RELEASE, k.releaseKeys(RandomIds.next()), TakenMessage.of(message).envelope().raw(),
					lifoFlag(message.queue()), TakenMessage.of(message).inFlightEntry(), this.replayWindow)
			.thenApply((released) -> released != null && released == 1L);
	}

	@Override
	public List<DeadLetter> deadLetters(String queue, int limit) {
		QueueKeys k = keys(queue);
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
		boolean existing = settings(queue).existingStream() != null;
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

	@Override
	public boolean requeueDeadLetter(String queue, String id) {
		// a call of its own, so that the same call sent again answers as the first did
		if (isStream(queue)) {
			refuseExisting(queue, "re-queues dead letters to it");
			return this.streams.requeue(keys(queue), id, 1) > 0;
		}
		Long moved = this.runner.execute(REQUEUE, keys(queue).deadKeys(RandomIds.next()), id, "1", this.replayWindow);
		return moved != null && moved > 0;
	}

	@Override
	public long requeueDeadLetters(String queue) {
		if (isStream(queue)) {
			refuseExisting(queue, "re-queues dead letters to it");
		}
		long total = 0;
		Long moved;
		do {
			moved = isStream(queue) ? Long.valueOf(this.streams.requeue(keys(queue), "", REAP_BATCH))
					: this.runner.execute(REQUEUE, keys(queue).deadKeys(RandomIds.next()), "",
							Integer.toString(REAP_BATCH), this.replayWindow);
			total += (moved != null) ? moved : 0;
		}
		while (moved != null && moved > 0);
		return total;
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
		Claim claim = RedisScriptRunner.await(claimAsync(queue, done, max), CLAIM_TIMEOUT, CLAIM.name());
		while (claim.taken().isEmpty() && !claim.unreadable().isEmpty()) {
			// only unreadable elements, dead-lettered: an empty answer would say the
			// queue
			// is empty
			claim = RedisScriptRunner.await(claimAsync(queue, List.of(), max), CLAIM_TIMEOUT, CLAIM.name());
		}
		return claim;
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
		return claimAsync(queue, List.of(), max).thenApply((claim) -> {
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

	private CompletableFuture<Claim> claimAsync(String queue, Collection<? extends QueueMessage<?>> done, int max) {
		Assert.isTrue(max > 0 && max <= MAX_BATCH, () -> "max must be between 1 and " + MAX_BATCH);
		QueueSettings settings = settings(queue);
		for (QueueMessage<?> message : done) {
			Assert.isTrue(message.queue().equals(queue), "Messages to acknowledge must be of the same queue");
		}
		String take = takeName(settings, done);
		CompletableFuture<?> call;
		CompletableFuture<Claim> claim;
		if (settings.store() == QueueStore.STREAM) {
			CompletableFuture<StreamQueueStore.Taken> taken = this.streams.take(queue, keys(queue), settings, done, max,
					take);
			call = taken;
			claim = carrying(taken, take, done).thenApply((streamTaken) -> {
				if (!done.isEmpty()) {
					acknowledged(queue, done, streamTaken.acked());
				}
				boolean none = streamTaken.messages().isEmpty() && streamTaken.unreadable().isEmpty();
				return new Claim(streamTaken.messages(), none ? streamTaken.waitMillis() : 0, streamTaken.unreadable());
			}).thenCompose((streamClaim) -> settleUnreadable(queue, streamClaim));
		}
		else {
			String[] args = new String[6 + done.size()];
			args[0] = lifoFlag(queue);
			args[1] = Long.toString(settings.visibilityTimeout().toMillis());
			args[2] = Integer.toString(REAP_BATCH);
			args[3] = Integer.toString(max);
			args[4] = take;
			args[5] = this.replayWindow;
			int i = 6;
			for (QueueMessage<?> message : done) {
				args[i++] = TakenMessage.of(message).inFlightEntry();
			}
			CompletableFuture<List> claimed = this.runner.executeAsync(CLAIM, keys(queue).claimKeys(take), args);
			call = claimed;
			claim = carrying(claimed, take, done).thenApply((reply) -> claimed(queue, take, done, reply))
				.thenCompose((listClaim) -> settleUnreadable(queue, listClaim));
		}
		claim.whenComplete((result, ex) -> {
			if (ex != null) {
				// a caller that cancelled (gave up) gives the call up: not sent again
				// after
				// NOSCRIPT
				call.cancel(false);
			}
		});
		return claim;
	}

	/**
	 * The call of a take, once it recorded that a take that failed carried {@code done}:
	 * the same acknowledgements sent again go under its name, so that its record answers
	 * what it acknowledged and took (not late acknowledgements, and messages taken for
	 * nobody). Whatever the failure: one not answered (a timeout, a lost connection, a
	 * caller that gave up) may have been applied, and a stream take answered with an
	 * error after its acknowledgements recorded them; a take that applied nothing left no
	 * record, and the next one under its name runs as new. The caller's answer depends on
	 * this stage, so that it sees the failure only once the name is recorded: a stage
	 * beside it may run after the caller woke and sent them again under a new name (issue
	 * 46: on the stream store, whose call is a stage more, it ran after it at low load).
	 */
	private static <T> CompletableFuture<T> carrying(CompletableFuture<T> call, String take,
			Collection<? extends QueueMessage<?>> done) {
		return call.whenComplete((reply, ex) -> {
			if (ex != null) {
				done.forEach((message) -> TakenMessage.of(message).carriedBy(take));
			}
		});
	}

	/**
	 * Whether a call that failed may have been applied by Redis: its answer is missing (a
	 * timeout, a lost connection, a caller that gave up), not an error Redis answered (a
	 * script's error, {@code NOSCRIPT}, {@code WRONGTYPE}, {@code OOM}), which its
	 * scripts answer having applied nothing (or, should a take fail after its
	 * acknowledgements, having recorded them under its name for a copy the client sends
	 * again).
	 * @param failure what the call failed with
	 * @return {@code false} for an error answered by Redis
	 */
	static boolean unanswered(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof RedkitScriptException) {
				return false;
			}
			if (cause.getCause() == cause) {
				break;
			}
		}
		return true;
	}

	/**
	 * The name of a take: that of an earlier take not answered that carried the same
	 * acknowledgements, or a new one (a list take's token: no '#', no '|').
	 */
	private static String takeName(QueueSettings settings, Collection<? extends QueueMessage<?>> done) {
		for (QueueMessage<?> message : done) {
			String earlier = TakenMessage.of(message).carriedBy();
			if (earlier != null) {
				return earlier;
			}
		}
		return (settings.store() == QueueStore.STREAM) ? RandomIds.next()
				: Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
	}

	private Claim claimed(String queue, String take, Collection<? extends QueueMessage<?>> done, List<?> reply) {
		if (!done.isEmpty()) {
			acknowledged(queue, done, (reply.get(2) instanceof Number acked) ? acked.longValue() : 0);
		}
		// nothing claimed is an integer first field: any string is an element, the empty
		// one included (something else may have written it; it is dead-lettered)
		if (!(reply.get(0) instanceof String)) {
			return new Claim(List.of(), Long.parseLong(String.valueOf(reply.get(1))), List.of());
		}
		// a take sent again ends with how long ago the first one took its elements: an
		// integer after them (elements are strings)
		int end = reply.size();
		long held = 0;
		if (end > 3 && reply.get(end - 1) instanceof Number heldMillis) {
			held = heldMillis.longValue();
			end--;
		}
		List<TakenMessage<Object>> taken = new ArrayList<>(end - 2);
		List<TakenMessage<Object>> unreadable = new ArrayList<>(0);
		for (int k = 0; k < end; k = (k == 0) ? 3 : k + 1) {
			String raw = (String) reply.get(k);
			Envelope envelope = Envelope.tryParse(raw);
			if (envelope != null) {
				taken.add(new TakenMessage<>(queue, envelope, take, null, held));
			}
			else {
				unreadable.add(new TakenMessage<>(queue, Envelope.unreadable(raw), take, null, held));
			}
		}
		return new Claim(taken, 0, unreadable);
	}

	/**
	 * Dead-letters (or drops, without dead letters) at once the elements of a take that
	 * are not Redkit queue elements: no retry can read them, and failing the whole take
	 * would leave its readable messages in flight until their visibility timeout. Should
	 * Redis refuse, they come back after their visibility timeout and are dead-lettered
	 * then; the take's readable messages are handed out either way.
	 */
	private CompletableFuture<Claim> settleUnreadable(String queue, Claim claim) {
		if (claim.unreadable().isEmpty()) {
			return CompletableFuture.completedFuture(claim);
		}
		CompletableFuture<?>[] settled = new CompletableFuture<?>[claim.unreadable().size()];
		for (int i = 0; i < settled.length; i++) {
			TakenMessage<Object> message = claim.unreadable().get(i);
			String raw = message.envelope().raw();
			IllegalArgumentException problem = unreadable(queue, message);
			logger.warn("Queue '" + queue + "' held an element that is not a Redkit queue element; it is"
					+ " dead-lettered (dropped without dead letters): " + problem.getMessage());
			try {
				settled[i] = failAsync(message, problem, true);
			}
			catch (RuntimeException ex) {
				settled[i] = CompletableFuture.failedFuture(ex);
			}
		}
		return CompletableFuture.allOf(settled).handle((done, ex) -> {
			if (ex != null) {
				logger.warn("Cannot dead-letter an unreadable element of queue '" + queue
						+ "'; it comes back after its visibility timeout", ex);
			}
			return claim;
		});
	}

	/**
	 * Why an element cannot be handed out: not a Redkit element, or an entry of a stream
	 * another application writes without the payload field.
	 */
	private IllegalArgumentException unreadable(String queue, TakenMessage<?> message) {
		ExistingStream existing = settings(queue).existingStream();
		if (existing != null) {
			return new IllegalArgumentException(
					"Entry " + message.id() + " of stream '" + existing.key() + "' has no field '"
							+ existing.payloadField() + "' (redkit.queue.queues." + queue + ".payload-field)");
		}
		return Envelope.notAnElement(message.envelope().raw());
	}

	/**
	 * Refuses what would write to a stream another application writes: its layout is that
	 * application's, and other groups may read it.
	 */
	private void refuseExisting(String queue, String what) {
		ExistingStream existing = settings(queue).existingStream();
		if (existing != null) {
			throw new IllegalArgumentException("Queue '" + queue + "' reads the stream '" + existing.key()
					+ "' another application writes (redkit.queue.queues." + queue + ".stream-key): Redkit never "
					+ what + "; add entries to it as that application does (XADD)");
		}
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

	private String lifoFlag(String queue) {
		return (settings(queue).order() == QueueOrder.LIFO) ? "1" : "0";
	}

	private Envelope envelope(Object payload, Map<String, String> headers) {
		Assert.notNull(payload, "payload must not be null");
		return Envelope.create(this.json.writeValueAsString(payload), headers);
	}

	private static long count(Object reply) {
		return (reply instanceof Number number) ? number.longValue() : 0;
	}

	private static String describe(Throwable error) {
		String text = error.getClass().getName() + ((error.getMessage() != null) ? ": " + error.getMessage() : "");
		return (text.length() > 2000) ? text.substring(0, 2000) : text;
	}

	/**
	 * The answer of a store's take.
	 *
	 * @param taken the claimed messages (no payload yet), possibly none
	 * @param waitMillis when nothing was claimed: how long until a delayed message is due
	 * or an in-flight one expires ({@code -1} = nothing pending; {@code 0} = only
	 * unreadable elements were taken, take again at once)
	 * @param unreadable the claimed elements that are not Redkit queue elements, settled
	 * apart
	 */
	private record Claim(List<TakenMessage<Object>> taken, long waitMillis, List<TakenMessage<Object>> unreadable) {

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
