package io.github.redkit.core.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import java.util.function.Function;

import io.netty.util.concurrent.FastThreadLocalThread;
import org.jspecify.annotations.Nullable;
import reactor.core.scheduler.NonBlocking;

import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.util.Assert;
import org.springframework.util.ClassUtils;

/**
 * Takes the blocking steps of a script (making or borrowing a connection) off a caller's
 * thread that must not block: a few threads of the runner's send the script, and the
 * short blocking steps of Redkit's non-blocking paths run on {@link #blockingSteps()}.
 */
final class BlockingHandOff {

	private static final boolean NETTY_PRESENT = ClassUtils.isPresent("io.netty.util.concurrent.FastThreadLocalThread",
			BlockingHandOff.class.getClassLoader());

	private static final boolean REACTOR_PRESENT = ClassUtils.isPresent("reactor.core.scheduler.NonBlocking",
			BlockingHandOff.class.getClassLoader());

	// set on Redkit's own asynchronous threads: what runs there must not wait for a
	// connection either, or they would grow with the calls waiting
	private static final ThreadLocal<Boolean> ASYNCHRONOUS = new ThreadLocal<>();

	private static final Executor CONNECTOR = Executors.newCachedThreadPool(asynchronousThreads("redkit-connect"));

	// sends the scripts of callers that must not block: bounded, as threads beyond the
	// pool's size would only wait for it, and more of them with every call while Redis
	// does not answer
	private final ExecutorService handOff;

	private final int threads;

	// scripts waiting for one of the threads: with Redis frozen and every thread waiting
	// for a connection, they would pile up at the request rate, each holding its
	// caller's arguments; beyond the bound a script fails at once (its caller's failure
	// mode), save a give-back, of which there are no more than what was taken
	private final AtomicInteger waiting = new AtomicInteger();

	private final int maxWaiting;

	BlockingHandOff(int threads, ExecutorService handOff) {
		this.threads = threads;
		this.handOff = handOff;
		this.maxWaiting = threads * RedisScriptRunner.HAND_OFF_WAITING_PER_THREAD;
	}

	/**
	 * The bounded executor of a hand-off of {@code threads} threads.
	 */
	static ExecutorService executor(int threads) {
		return RedkitThreads.bounded(asynchronousThreads("redkit-hand-off"), threads);
	}

	static int checked(int handOffThreads) {
		Assert.isTrue(handOffThreads > 0, () -> "handOffThreads must be > 0 (was " + handOffThreads + ")");
		return handOffThreads;
	}

	/**
	 * Where the short blocking steps of a non-blocking path run: daemon threads, created
	 * as needed, that count as non-blocking themselves.
	 */
	static Executor blockingSteps() {
		return CONNECTOR;
	}

	int threads() {
		return this.threads;
	}

	private static ThreadFactory asynchronousThreads(String name) {
		return (task) -> RedkitThreads.newThread(name, () -> {
			ASYNCHRONOUS.set(Boolean.TRUE);
			task.run();
		}, true);
	}

	static boolean onNonBlockingThread() {
		Thread thread = Thread.currentThread();
		// Netty's event loops (Lettuce's, a WebFlux server's), Reactor's non-blocking
		// schedulers and Redkit's own asynchronous steps
		return (NETTY_PRESENT && thread instanceof FastThreadLocalThread)
				|| (REACTOR_PRESENT && thread instanceof NonBlocking) || ASYNCHRONOUS.get() != null;
	}

	/**
	 * Sends a script on one of the hand-off's threads.
	 * @param what the script's name, for the failure
	 * @param givesBack whether the script gives back what its caller held: handed off
	 * even when {@link RedisScriptRunner#HAND_OFF_WAITING_PER_THREAD} scripts per thread
	 * wait already, as it frees what would otherwise stay held
	 * @param send sends the script, given the caller's future: it may block for a
	 * connection, and returns that future unsent when the caller gave up meanwhile
	 * @return the caller's future
	 */
	<T> CompletableFuture<T> handOff(String what, boolean givesBack,
			Function<CompletableFuture<T>, CompletableFuture<T>> send) {
		// the caller's own future: when it times out or is cancelled, the caller gave up
		CompletableFuture<T> answer = new CompletableFuture<>();
		if (this.waiting.incrementAndGet() > this.maxWaiting && !givesBack) {
			this.waiting.decrementAndGet();
			answer.completeExceptionally(new RedisConnectionFailureException("Redkit could not hand " + what
					+ " off to be sent: " + this.maxWaiting + " scripts wait for a connection already"));
			return answer;
		}
		try {
			this.handOff.execute(() -> {
				this.waiting.decrementAndGet();
				relay(send, answer);
			});
		}
		catch (RejectedExecutionException ex) {
			this.waiting.decrementAndGet();
			// shut down or refusing: an answer like any failure to send, never a throw
			// that a caller who made a slot or a record first does not expect
			answer.completeExceptionally(new RedisConnectionFailureException(
					"Redkit could not hand " + what + " off to be sent: " + ex.getMessage(), ex));
		}
		return answer;
	}

	private static <T> void relay(Function<CompletableFuture<T>, CompletableFuture<T>> send,
			CompletableFuture<T> answer) {
		if (answer.isDone()) {
			return;
		}
		CompletableFuture<T> sent;
		try {
			sent = send.apply(answer);
		}
		catch (Throwable ex) {
			// an Error too: the caller may have no timeout of its own to end its wait
			sent = CompletableFuture.failedFuture(ex);
		}
		if (sent == answer) {
			return;
		}
		BiConsumer<T, @Nullable Throwable> relay = (value, ex) -> {
			if (ex != null) {
				answer.completeExceptionally(ScriptFailures.unwrap(ex));
			}
			else {
				answer.complete(value);
			}
		};
		// a caller who cancels gives the script up: one Redis must load first is not sent
		// again for nobody (ScriptCalls)
		CompletableFuture<T> call = sent;
		answer.whenComplete((value, ex) -> {
			if (answer.isCancelled()) {
				call.cancel(false);
			}
		});
		if (sent.isDone()) {
			// failed (or answered) at once: the caller's continuation runs elsewhere,
			// not on one of the hand-off's few threads
			sent.whenCompleteAsync(relay, CONNECTOR);
		}
		else {
			sent.whenComplete(relay);
		}
	}

}
