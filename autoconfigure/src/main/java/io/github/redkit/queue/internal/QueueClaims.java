package io.github.redkit.queue.internal;

import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BiFunction;

import io.github.redkit.core.RedkitScriptException;
import io.github.redkit.core.internal.RandomIds;
import io.github.redkit.queue.ExistingStream;
import io.github.redkit.queue.QueueMessage;
import io.github.redkit.queue.QueueSettings;
import io.github.redkit.queue.QueueStore;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.util.Assert;

/**
 * The takes of a {@link RedisQueueTemplate}: each acknowledges the handled messages and
 * claims up to a batch in one script call of the queue's store, under a name, so that a
 * take sent again (by the client after a reconnect, or by its caller after one not
 * answered) answers what the first one acknowledged and took; elements that are not
 * Redkit queue elements are dead-lettered at once.
 */
final class QueueClaims {

	/**
	 * Logs as the template it serves: the log categories an application configures stay
	 * those of the template.
	 */
	private static final Log logger = LogFactory.getLog(RedisQueueTemplate.class);

	private final QueueStores stores;

	private final QueueEvents events;

	/**
	 * Dead-letters (or drops) an unreadable element at once, through the template, whose
	 * failures are recorded as any other.
	 */
	private final BiFunction<TakenMessage<Object>, RuntimeException, CompletableFuture<?>> deadLetter;

	QueueClaims(QueueStores stores, QueueEvents events,
			BiFunction<TakenMessage<Object>, RuntimeException, CompletableFuture<?>> deadLetter) {
		this.stores = stores;
		this.events = events;
		this.deadLetter = deadLetter;
	}

	/**
	 * Sends a take without waiting for Redis ({@link RedisQueueTemplate} waits for it).
	 * @param queue the queue name
	 * @param done messages of this queue to acknowledge first, possibly none
	 * @param max how many to take at most
	 * @return the claimed envelopes, or how long until something may become ready
	 */
	CompletableFuture<Claim> claimAsync(String queue, Collection<? extends QueueMessage<?>> done, int max) {
		Assert.isTrue(max > 0 && max <= RedisQueueTemplate.MAX_BATCH,
				() -> "max must be between 1 and " + RedisQueueTemplate.MAX_BATCH);
		QueueSettings settings = this.stores.settings(queue);
		for (QueueMessage<?> message : done) {
			Assert.isTrue(message.queue().equals(queue), "Messages to acknowledge must be of the same queue");
		}
		String take = takeName(settings, done);
		CompletableFuture<?> call;
		CompletableFuture<Claim> claim;
		if (settings.store() == QueueStore.STREAM) {
			CompletableFuture<StreamQueueStore.Taken> taken = this.stores.streams()
				.take(queue, this.stores.keys(queue), settings, done, max, take);
			call = taken;
			claim = carrying(taken, take, done).thenApply((streamTaken) -> {
				if (!done.isEmpty()) {
					this.events.acknowledged(queue, done, streamTaken.acked());
				}
				boolean none = streamTaken.messages().isEmpty() && streamTaken.unreadable().isEmpty();
				return new Claim(streamTaken.messages(), none ? streamTaken.waitMillis() : 0, streamTaken.unreadable());
			}).thenCompose((streamClaim) -> settleUnreadable(queue, streamClaim));
		}
		else {
			CompletableFuture<List> claimed = this.stores.lists()
				.take(this.stores.keys(queue), settings, done, max, take);
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
		ListQueueStore.Taken taken = ListQueueStore.taken(queue, take, reply);
		if (!done.isEmpty()) {
			this.events.acknowledged(queue, done, taken.acked());
		}
		return new Claim(taken.messages(), taken.waitMillis(), taken.unreadable());
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
			IllegalArgumentException problem = unreadable(queue, message);
			logger.warn("Queue '" + queue + "' held an element that is not a Redkit queue element; it is"
					+ " dead-lettered (dropped without dead letters): " + problem.getMessage());
			try {
				settled[i] = this.deadLetter.apply(message, problem);
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
		ExistingStream existing = this.stores.settings(queue).existingStream();
		if (existing != null) {
			return new IllegalArgumentException(
					"Entry " + message.id() + " of stream '" + existing.key() + "' has no field '"
							+ existing.payloadField() + "' (redkit.queue.queues." + queue + ".payload-field)");
		}
		return Envelope.notAnElement(message.envelope().raw());
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
	record Claim(List<TakenMessage<Object>> taken, long waitMillis, List<TakenMessage<Object>> unreadable) {

	}

}
