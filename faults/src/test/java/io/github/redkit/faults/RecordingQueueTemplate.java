package io.github.redkit.faults;

import java.lang.reflect.Field;
import java.lang.reflect.Type;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.queue.FailureOutcome;
import io.github.redkit.queue.QueueMessage;
import io.github.redkit.queue.internal.RedisQueueTemplate;
import io.github.redkit.queue.internal.TakenMessage;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

/**
 * Redkit's own template, reporting every take, extension and settlement to an observer:
 * the fault harness's record of what each consumer held and for how long (the listeners'
 * heartbeat extends through {@link RedisQueueTemplate#extendAsync}, which it overrides).
 * It can also be broken on purpose, to show a checker catching a broken build.
 */
public class RecordingQueueTemplate extends RedisQueueTemplate {

	private static final ThreadLocal<@Nullable String> lastTaken = new ThreadLocal<>();

	private final Observer observer;

	private final int dropEvery;

	private final boolean fakeExtends;

	private final int twiceEvery;

	private final AtomicLong sends = new AtomicLong();

	/**
	 * Takes over what an auto-configured template was built with.
	 * @param original the auto-configured template
	 * @param metrics the metrics it records to
	 * @param observer who is told
	 * @param dropEvery a broken build drops every n-th send while reporting success (0 =
	 * none)
	 * @param fakeExtends a broken build answers every extension {@code true} without
	 * asking Redis
	 * @param twiceEvery a broken build sends every n-th message twice, as a send sent
	 * again without a dedupe does (0 = none)
	 */
	@SuppressWarnings("unchecked")
	public RecordingQueueTemplate(RedisQueueTemplate original, RedkitMetrics metrics, Observer observer, int dropEvery,
			boolean fakeExtends, int twiceEvery) {
		super(field(original, "runner", RedisScriptRunner.class), field(original, "keyspace", RedisKeyspace.class),
				field(original, "json", JsonMapper.class), field(original, "settings", Function.class), metrics,
				RedkitObservations.NONE);
		this.observer = observer;
		this.dropEvery = dropEvery;
		this.fakeExtends = fakeExtends;
		this.twiceEvery = twiceEvery;
	}

	/**
	 * What a take put in flight: the key that settlements and extensions of it carry.
	 * @param message the message
	 * @return its take's in-flight entry
	 */
	public static String take(QueueMessage<?> message) {
		return TakenMessage.of(message).inFlightEntry();
	}

	/**
	 * The take of the first message the calling thread took last: a listener consumer
	 * takes and then handles on one thread.
	 * @return the take, or {@code null}
	 */
	public static @Nullable String lastTaken() {
		return lastTaken.get();
	}

	@Override
	public void send(String queue, Object payload) {
		if (this.dropEvery > 0 && this.sends.incrementAndGet() % this.dropEvery == 0) {
			return;
		}
		if (this.twiceEvery > 0 && this.sends.incrementAndGet() % this.twiceEvery == 0) {
			super.send(queue, payload);
		}
		super.send(queue, payload);
	}

	@Override
	public <T> Optional<QueueMessage<T>> receive(String queue, Class<T> type) {
		long invoked = this.observer.now();
		Optional<QueueMessage<T>> message = super.receive(queue, type);
		took(message.stream().toList(), invoked);
		return message;
	}

	@Override
	public <T> Optional<QueueMessage<T>> ackAndReceive(QueueMessage<?> done, Class<T> type) {
		long invoked = this.observer.now();
		this.observer.settling(take(done), "ack", invoked);
		Optional<QueueMessage<T>> message = super.ackAndReceive(done, type);
		took(message.stream().toList(), invoked);
		return message;
	}

	@Override
	public <T> List<QueueMessage<T>> ackAndReceive(Collection<? extends QueueMessage<?>> done, String queue,
			Class<T> type, int max) {
		long invoked = this.observer.now();
		done.forEach((message) -> this.observer.settling(take(message), "ack", invoked));
		List<QueueMessage<T>> messages = super.ackAndReceive(done, queue, type, max);
		took(messages, invoked);
		return messages;
	}

	@Override
	public Batch take(String queue, Type payloadType, List<? extends QueueMessage<?>> done, int max) {
		long invoked = this.observer.now();
		done.forEach((message) -> this.observer.settling(take(message), "ack", invoked));
		Batch batch = super.take(queue, payloadType, done, max);
		took(batch.messages(), invoked);
		return batch;
	}

	private void took(List<? extends QueueMessage<?>> messages, long invoked) {
		long completed = this.observer.now();
		lastTaken.set(messages.isEmpty() ? null : take(messages.get(0)));
		for (QueueMessage<?> message : messages) {
			this.observer.took(take(message), String.valueOf(message.payload()), message.deliveries(), invoked,
					completed);
		}
	}

	@Override
	public CompletableFuture<Boolean> ackAsync(QueueMessage<?> message) {
		this.observer.settling(take(message), "ack", this.observer.now());
		return super.ackAsync(message);
	}

	@Override
	public CompletableFuture<FailureOutcome> failAsync(QueueMessage<?> message, Throwable error, boolean exhausted) {
		this.observer.settling(take(message), "fail", this.observer.now());
		return super.failAsync(message, error, exhausted);
	}

	@Override
	public CompletableFuture<Boolean> releaseAsync(QueueMessage<?> message) {
		this.observer.settling(take(message), "release", this.observer.now());
		return super.releaseAsync(message);
	}

	@Override
	public CompletableFuture<Boolean> extendAsync(QueueMessage<?> message, Duration visibility) {
		long invoked = this.observer.now();
		String take = take(message);
		if (this.fakeExtends) {
			this.observer.extended(take, invoked, this.observer.now(), visibility, true);
			return CompletableFuture.completedFuture(true);
		}
		return super.extendAsync(message, visibility).whenComplete((extended, ex) -> this.observer.extended(take,
				invoked, this.observer.now(), visibility, (ex != null) ? null : extended));
	}

	private static <T> T field(RedisQueueTemplate template, String name, Class<T> type) {
		try {
			Field field = RedisQueueTemplate.class.getDeclaredField(name);
			field.setAccessible(true);
			return type.cast(field.get(template));
		}
		catch (ReflectiveOperationException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * Told of every take, extension and settlement, on the harness's clock.
	 */
	public interface Observer {

		/**
		 * The harness's clock.
		 * @return nanoseconds since the run started
		 */
		long now();

		/**
		 * A message was taken.
		 * @param take its take
		 * @param payload its payload
		 * @param deliveries its delivery count
		 * @param invoked when the take was sent
		 * @param completed when it answered
		 */
		void took(String take, String payload, int deliveries, long invoked, long completed);

		/**
		 * A take is being settled.
		 * @param take the take
		 * @param how {@code ack}, {@code fail} or {@code release}
		 * @param invoked when the settlement was sent
		 */
		void settling(String take, String how, long invoked);

		/**
		 * An extension answered.
		 * @param take the take
		 * @param invoked when it was sent
		 * @param completed when it answered
		 * @param visibility the visibility it asked for
		 * @param extended its answer, {@code null} when it failed
		 */
		void extended(String take, long invoked, long completed, Duration visibility, @Nullable Boolean extended);

	}

}
