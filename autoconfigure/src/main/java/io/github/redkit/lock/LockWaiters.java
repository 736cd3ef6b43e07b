package io.github.redkit.lock;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;

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

	private final RedisConnectionFactory connectionFactory;

	private final Map<String, Channel> channels = new ConcurrentHashMap<>();

	// not synchronized: a virtual thread must not pin its carrier while (un)subscribing
	private final ReentrantLock subscriptions = new ReentrantLock();

	private @Nullable RedisMessageListenerContainer container;

	LockWaiters(RedisConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
	}

	Waiter subscribe(String channelName) {
		Waiter waiter = new Waiter(channelName);
		this.subscriptions.lock();
		try {
			Channel channel = this.channels.get(channelName);
			if (channel == null) {
				channel = new Channel();
				this.channels.put(channelName, channel);
				try {
					container().addMessageListener(channel, new ChannelTopic(channelName));
				}
				catch (RuntimeException ex) {
					// waiting still works, with the fallback retry only
					logger.debug("Could not subscribe to lock channel '" + channelName + "'", ex);
				}
			}
			channel.waiters.add(waiter);
			waiter.channelWaiters = channel.waiters;
		}
		finally {
			this.subscriptions.unlock();
		}
		return waiter;
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
				try {
					if (this.container != null) {
						this.container.removeMessageListener(channel);
					}
				}
				catch (RuntimeException ex) {
					logger.debug("Could not unsubscribe from lock channel '" + waiter.channel + "'", ex);
				}
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

	void shutdown() {
		this.subscriptions.lock();
		try {
			if (this.container != null) {
				this.container.destroy();
				this.container = null;
			}
		}
		catch (Exception ex) {
			logger.debug("Could not stop the lock notification container", ex);
		}
		finally {
			this.subscriptions.unlock();
		}
	}

	/**
	 * The waiters of one lock in this process.
	 */
	private static final class Channel implements MessageListener {

		// in arrival order: the longest waiting is woken first
		final Queue<Waiter> waiters = new ConcurrentLinkedQueue<>();

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
			return wakeUp.completeOnTimeout(null, timeout.toNanos(), TimeUnit.NANOSECONDS).thenRun(() -> {
				this.released.drainPermits();
				this.woken.set(false);
			});
		}

	}

}
