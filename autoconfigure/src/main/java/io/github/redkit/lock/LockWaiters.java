package io.github.redkit.lock;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
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
 * Wakes the callers waiting for a lock when its holder releases it: the release script
 * publishes on a channel named after the lock key (only when someone waits), and this
 * process subscribes to a channel only while one of its threads waits for that lock. A
 * lost message costs a waiter at most one fallback retry interval.
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
		}
		finally {
			this.subscriptions.unlock();
		}
		return waiter;
	}

	void unsubscribe(Waiter waiter) {
		this.subscriptions.lock();
		try {
			Channel channel = this.channels.get(waiter.channel);
			if (channel != null && channel.waiters.remove(waiter) && channel.waiters.isEmpty()) {
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

		final Set<Waiter> waiters = ConcurrentHashMap.newKeySet();

		@Override
		public void onMessage(Message message, byte @Nullable [] pattern) {
			this.waiters.forEach(Waiter::wake);
		}

	}

	/**
	 * One thread waiting for one lock.
	 */
	static final class Waiter {

		private final String channel;

		private final Semaphore released = new Semaphore(0);

		Waiter(String channel) {
			this.channel = channel;
		}

		void wake() {
			this.released.release();
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
		}

	}

}
