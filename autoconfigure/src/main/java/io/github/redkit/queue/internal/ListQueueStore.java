package io.github.redkit.queue.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.github.redkit.core.internal.LuaScript;
import io.github.redkit.core.internal.RandomIds;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.queue.QueueMessage;
import io.github.redkit.queue.QueueOrder;
import io.github.redkit.queue.QueueSettings;
import io.github.redkit.queue.QueueStats;

/**
 * The list store of a queue (the default): its ready messages are elements of a list,
 * those in flight entries of a sorted set by when their visibility timeout ends, its
 * delayed and dead-lettered ones kept beside. As with {@link StreamQueueStore}, the
 * template decides (what a failure does, how long a backoff is, which messages to
 * acknowledge) and this store applies each decision in one script call; a take of an
 * element is its in-flight entry.
 */
final class ListQueueStore {

	static final LuaScript<List> CLAIM = LuaScript.load("queue_claim", List.class).givenUpWithItsCaller();

	static final LuaScript<Long> FAIL = LuaScript.load("queue_fail", Long.class);

	static final LuaScript<Long> RELEASE = LuaScript.load("queue_release", Long.class);

	static final LuaScript<Long> DELAY = LuaScript.load("queue_delay", Long.class);

	private static final LuaScript<Long> REQUEUE = LuaScript.load("queue_requeue", Long.class);

	static final LuaScript<Long> SEND = LuaScript.load("queue_send", Long.class);

	static final LuaScript<Long> ACK = LuaScript.load("queue_ack", Long.class);

	private static final LuaScript<List> STATS = LuaScript.load("queue_stats", List.class);

	static final LuaScript<Long> EXTEND = LuaScript.load("queue_extend", Long.class);

	/**
	 * How many expired or due messages one claim moves at most: keeps the script short (a
	 * claim that moved a full batch writes no next-due hint, so the next one reaps too).
	 */
	static final int REAP_BATCH = 100;

	private final RedisScriptRunner runner;

	private final String replayWindow;

	ListQueueStore(RedisScriptRunner runner, String replayWindow) {
		this.runner = runner;
		this.replayWindow = replayWindow;
	}

	CompletableFuture<Long> push(QueueKeys keys, List<Envelope> envelopes) {
		String[] args = new String[envelopes.size() + 1];
		args[0] = this.replayWindow;
		for (int i = 0; i < envelopes.size(); i++) {
			args[i + 1] = envelopes.get(i).raw();
		}
		return this.runner.executeAsync(SEND, keys.sendKeys(envelopes.get(0).id()), args);
	}

	CompletableFuture<Boolean> delay(QueueKeys keys, QueueSettings settings, Envelope envelope, Duration delay) {
		return this.runner
			.executeAsync(DELAY, keys.delayKeys(envelope.id()), envelope.raw(), Long.toString(delay.toMillis()),
					settings.collapse().scriptValue(), this.replayWindow)
			.thenApply((scheduled) -> scheduled != null && scheduled == 1L);
	}

	long size(QueueKeys keys) {
		Long size = this.runner.template().opsForList().size(keys.ready());
		return (size != null) ? size : 0;
	}

	/**
	 * Counts, read at one instant in one script; the oldest age is that of the first
	 * ready element.
	 */
	QueueStats stats(QueueKeys keys) {
		List<?> reply = this.runner.execute(STATS,
				List.of(keys.ready(), keys.delayed(), keys.inFlight(), keys.deadIndex()));
		long now = Long.parseLong(String.valueOf(reply.get(5)));
		return new QueueStats(count(reply.get(0)), count(reply.get(1)), count(reply.get(2)), count(reply.get(3)),
				Envelope.ageOf(String.valueOf(reply.get(4)), now));
	}

	CompletableFuture<Long> ack(QueueKeys keys, TakenMessage<?> message) {
		return this.runner.executeAsync(ACK, keys.ackKeys(RandomIds.next()), message.inFlightEntry(),
				this.replayWindow);
	}

	CompletableFuture<Boolean> extend(QueueKeys keys, TakenMessage<?> message, Duration visibility) {
		return this.runner
			.executeAsync(EXTEND, keys.extendKeys(), message.inFlightEntry(), Long.toString(visibility.toMillis()))
			.thenApply((extended) -> extended != null && extended == 1L);
	}

	CompletableFuture<Long> fail(QueueKeys keys, QueueSettings settings, QueueMessage<?> message, String mode,
			long backoffMillis, String error) {
		return this.runner.executeAsync(FAIL, keys.failKeys(RandomIds.next()),
				TakenMessage.of(message).envelope().raw(), mode, Long.toString(backoffMillis), message.id(), error,
				Long.toString(settings.deadLetterRetention().toMillis()), TakenMessage.of(message).inFlightEntry(),
				this.replayWindow);
	}

	CompletableFuture<Boolean> release(QueueKeys keys, QueueSettings settings, TakenMessage<?> message) {
		return this.runner
			.executeAsync(RELEASE, keys.releaseKeys(RandomIds.next()), message.envelope().raw(), lifoFlag(settings),
					message.inFlightEntry(), this.replayWindow)
			.thenApply((released) -> released != null && released == 1L);
	}

	/**
	 * Moves a dead letter (or, with the id {@code ""}, up to {@code batch} of them) back
	 * to the queue, in a call of its own, so that the same call sent again answers as the
	 * first did.
	 * @return how many were moved
	 */
	long requeue(QueueKeys keys, String id, int batch) {
		Long moved = this.runner.execute(REQUEUE, keys.deadKeys(RandomIds.next()), id, Integer.toString(batch),
				this.replayWindow);
		return (moved != null) ? moved : 0;
	}

	/**
	 * Acknowledges {@code done} and takes up to {@code max} elements (reaping expired and
	 * due ones first, unless the queue's next-due hint says none is), in one script call.
	 * @param take the take's name: the same take sent again is answered from its record
	 * @return the script's reply, read by {@link #taken}
	 */
	CompletableFuture<List> take(QueueKeys keys, QueueSettings settings, Collection<? extends QueueMessage<?>> done,
			int max, String take) {
		String[] args = new String[6 + done.size()];
		args[0] = lifoFlag(settings);
		args[1] = Long.toString(settings.visibilityTimeout().toMillis());
		args[2] = Integer.toString(REAP_BATCH);
		args[3] = Integer.toString(max);
		args[4] = take;
		args[5] = this.replayWindow;
		int i = 6;
		for (QueueMessage<?> message : done) {
			args[i++] = TakenMessage.of(message).inFlightEntry();
		}
		return this.runner.executeAsync(CLAIM, keys.claimKeys(take), args);
	}

	/**
	 * Reads a take's reply.
	 * @param queue the queue name
	 * @param take the take's name
	 * @param reply what the take's script answered
	 * @return what it took
	 */
	static Taken taken(String queue, String take, List<?> reply) {
		long acked = (reply.get(2) instanceof Number number) ? number.longValue() : 0;
		// nothing claimed is an integer first field: any string is an element, the empty
		// one included (something else may have written it; it is dead-lettered)
		if (!(reply.get(0) instanceof String)) {
			return new Taken(List.of(), List.of(), acked, Long.parseLong(String.valueOf(reply.get(1))));
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
		return new Taken(taken, unreadable, acked, 0);
	}

	private static String lifoFlag(QueueSettings settings) {
		return (settings.order() == QueueOrder.LIFO) ? "1" : "0";
	}

	private static long count(Object reply) {
		return (reply instanceof Number number) ? number.longValue() : 0;
	}

	/**
	 * What a take found.
	 *
	 * @param messages the readable messages taken (no payload yet), possibly none
	 * @param unreadable the elements taken that are not Redkit queue elements
	 * @param acked how many of the acknowledgements it carried it applied
	 * @param waitMillis when nothing was taken: how long until a delayed message is due
	 * or an in-flight one expires ({@code -1} = nothing pending)
	 */
	record Taken(List<TakenMessage<Object>> messages, List<TakenMessage<Object>> unreadable, long acked,
			long waitMillis) {

	}

}
