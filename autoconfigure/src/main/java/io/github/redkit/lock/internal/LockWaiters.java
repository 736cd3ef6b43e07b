package io.github.redkit.lock.internal;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;

import io.github.redkit.core.internal.RedisScriptRunner;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.task.SyncTaskExecutor;
import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

/**
 * Wakes a caller waiting for a lock when its holder releases it: the release script
 * publishes on a channel named after the lock key (only when someone waits), and this
 * process subscribes to a channel only while one of its threads waits for that lock. A
 * release wakes one waiter of the process, the longest waiting one, not all of them (no
 * thundering herd: the cost of a hand-over does not grow with the waiters); a woken
 * waiter that leaves without trying passes the wake-up on, and one that takes the lock
 * while others wait keeps the flag that makes the next release publish. A lost message
 * costs a waiter at most one fallback retry interval.
 */
final class LockWaiters {

	private static final Log logger = LogFactory.getLog(LockWaiters.class);

	/**
	 * The longest a waiter waits for its subscription to be confirmed before it polls.
	 */
	private static final long SUBSCRIBE_WAIT_NANOS = Duration.ofSeconds(1).toNanos();

	private final RedisConnectionFactory connectionFactory;

	private final Map<String, Channel> channels = new ConcurrentHashMap<>();

	// not synchronized: a virtual thread must not pin its carrier while (un)subscribing
	private final ReentrantLock subscriptions = new ReentrantLock();

	// the listener container can wait for Redis without a bound (a subscription that is
	// never confirmed): every call to it runs on this one thread, in order, never under
	// the lock above, and a waiter waits for it only briefly
	private final ExecutorService subscriber = Executors.newSingleThreadExecutor((task) -> {
		Thread thread = new Thread(task, "redkit-lock-subscriber");
		thread.setDaemon(true);
		return thread;
	});

	// when the subscriber began its current call, 0 when idle
	private volatile long busySince;

	// touched by the subscriber thread only
	private @Nullable RedisMessageListenerContainer container;

	LockWaiters(RedisConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
	}

	/**
	 * Registers a waiter for a lock and subscribes to its channel when this process does
	 * not yet; waits for the subscription to be confirmed, so that a release published
	 * after it wakes the waiter, at most {@code maxWait} and one second, and not at all
	 * while the subscriber is stuck on an older call: the waiter then polls.
	 * @param channelName the lock's channel
	 * @param maxWait how long the waiter may still wait for the lock
	 * @return the waiter
	 */
	Waiter subscribe(String channelName, Duration maxWait) {
		Waiter waiter = new Waiter(channelName);
		CompletableFuture<?> subscribed;
		this.subscriptions.lock();
		try {
			Channel channel = this.channels.get(channelName);
			if (channel == null) {
				Channel created = new Channel();
				created.subscribed = onSubscriber(() -> add(created, channelName));
				this.channels.put(channelName, created);
				channel = created;
			}
			channel.waiters.add(waiter);
			waiter.channelWaiters = channel.waiters;
			subscribed = channel.subscribed;
		}
		finally {
			this.subscriptions.unlock();
		}
		awaitSubscribed(subscribed, maxWait);
		return waiter;
	}

	private void awaitSubscribed(CompletableFuture<?> subscribed, Duration maxWait) {
		long busy = this.busySince;
		if (busy != 0 && System.nanoTime() - busy > SUBSCRIBE_WAIT_NANOS) {
			return;
		}
		try {
			subscribed.get(Math.min(maxWait.toNanos(), SUBSCRIBE_WAIT_NANOS), TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException | ExecutionException ex) {
			// waiting still works, with the fallback retry only
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	void unsubscribe(Waiter waiter, boolean acquired) {
		this.subscriptions.lock();
		try {
			Channel channel = this.channels.get(waiter.channel);
			if (channel != null && channel.waiters.remove(waiter) && !acquired && waiter.wasWokenInVain()) {
				// it leaves with a wake-up it did not use: the next waiter tries instead
				channel.wakeOne();
			}
			if (channel != null && channel.waiters.isEmpty()) {
				this.channels.remove(waiter.channel);
				onSubscriber(() -> remove(channel, waiter.channel));
			}
		}
		finally {
			this.subscriptions.unlock();
		}
	}

	int waiting(String channelName) {
		Channel channel = this.channels.get(channelName);
		return (channel != null) ? channel.waiters.size() : 0;
	}

	private CompletableFuture<@Nullable Void> onSubscriber(Runnable call) {
		try {
			return CompletableFuture.runAsync(() -> {
				this.busySince = System.nanoTime();
				try {
					call.run();
				}
				finally {
					this.busySince = 0;
				}
			}, this.subscriber);
		}
		catch (RejectedExecutionException ex) {
			// shut down: waiting works with the fallback retry only
			return CompletableFuture.completedFuture(null);
		}
	}

	private void add(Channel channel, String channelName) {
		try {
			container().addMessageListener(channel, new ChannelTopic(channelName));
		}
		catch (RuntimeException ex) {
			logger.debug("Could not subscribe to lock channel '" + channelName + "'", ex);
		}
	}

	private void remove(Channel channel, String channelName) {
		try {
			if (this.container != null) {
				this.container.removeMessageListener(channel);
			}
		}
		catch (RuntimeException ex) {
			logger.debug("Could not unsubscribe from lock channel '" + channelName + "'", ex);
		}
	}

	private RedisMessageListenerContainer container() {
		if (this.container == null) {
			RedisMessageListenerContainer container = new RedisMessageListenerContainer();
			container.setConnectionFactory(this.connectionFactory);
			// waking waiters only releases semaphores: no thread per message needed
			container.setTaskExecutor(new SyncTaskExecutor());
			container.setErrorHandler((ex) -> logger.debug("Lock notification failed", ex));
			container.afterPropertiesSet();
			container.start();
			this.container = container;
		}
		return this.container;
	}

	/**
	 * Stops the container, waiting at most a few seconds for a subscriber that is stuck.
	 */
	void shutdown() {
		onSubscriber(() -> {
			try {
				if (this.container != null) {
					this.container.destroy();
					this.container = null;
				}
			}
			catch (Exception ex) {
				logger.debug("Could not stop the lock notification container", ex);
			}
		});
		this.subscriber.shutdown();
		try {
			if (!this.subscriber.awaitTermination(3, TimeUnit.SECONDS)) {
				this.subscriber.shutdownNow();
				logger.debug("The lock notification container did not stop within 3 seconds");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * The waiters of one lock in this process.
	 */
	private static final class Channel implements MessageListener {

		// in arrival order: the longest waiting is woken first
		final Queue<Waiter> waiters = new ConcurrentLinkedQueue<>();

		// done once Redis confirmed the subscription, or it failed
		volatile CompletableFuture<?> subscribed = CompletableFuture.completedFuture(null);

		@Override
		public void onMessage(Message message, byte @Nullable [] pattern) {
			wakeOne();
		}

		void wakeOne() {
			for (Waiter waiter : this.waiters) {
				if (waiter.wake()) {
					return;
				}
			}
		}

	}

	/**
	 * One thread waiting for one lock.
	 */
	static final class Waiter {

		private final String channel;

		private final Semaphore released = new Semaphore(0);

		private final AtomicBoolean woken = new AtomicBoolean();

		private volatile Collection<Waiter> channelWaiters = List.of();

		// what a waiter that must not block waits for
		private volatile CompletableFuture<@Nullable Void> wakeUp = new CompletableFuture<>();

		Waiter(String channel) {
			this.channel = channel;
		}

		/**
		 * Wakes this waiter unless a wake-up is already on its way to it.
		 * @return {@code true} when it was woken now
		 */
		boolean wake() {
			if (this.woken.compareAndSet(false, true)) {
				this.released.release();
				this.wakeUp.complete(null);
				return true;
			}
			return false;
		}

		boolean wasWokenInVain() {
			return this.woken.get();
		}

		/**
		 * Whether other threads of this process wait for the same lock.
		 * @return {@code true} when this is not the only waiter
		 */
		boolean othersWait() {
			return this.channelWaiters.size() > 1;
		}

		/**
		 * Waits until the lock is released or the time is up.
		 * @param timeout the longest wait
		 * @throws InterruptedException when the thread is interrupted
		 */
		void await(Duration timeout) throws InterruptedException {
			if (this.released.tryAcquire(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
				this.released.drainPermits();
			}
			// the wake-up, if any, is used by the attempt that follows
			this.woken.set(false);
		}

		/**
		 * Waits, without blocking a thread, until the lock is released or the time is up.
		 * @param timeout the longest wait
		 * @return completes when the wait is over
		 */
		CompletableFuture<@Nullable Void> awaitAsync(Duration timeout) {
			CompletableFuture<@Nullable Void> wakeUp = new CompletableFuture<>();
			this.wakeUp = wakeUp;
			// a wake-up that came before this wait left its permit
			if (this.released.tryAcquire()) {
				wakeUp.complete(null);
			}
			// the time being up completes on the blocking steps' threads, not on the
			// JDK's one timer thread
			return RedisScriptRunner.awaitAtMost(wakeUp, timeout).thenRun(() -> {
				this.released.drainPermits();
				this.woken.set(false);
			});
		}

	}

}
