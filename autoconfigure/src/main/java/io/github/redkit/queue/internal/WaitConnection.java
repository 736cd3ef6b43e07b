package io.github.redkit.queue.internal;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.github.redkit.core.internal.RedkitThreads;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * One connection of a {@link PooledWaitShare}, held by one waiting consumer at a time. It
 * is borrowed from the pool the first time a wait needs it, on a thread of its own: the
 * pool's borrowers may wait for ever ({@code max-wait} -1, Spring Boot's default) while
 * the application holds every connection, and a consumer must not wait longer than its
 * wait would on Redis. Then it is kept, whatever the application borrows later, until its
 * share gives it back.
 */
final class WaitConnection {

	private static final Log logger = LogFactory.getLog(WaitConnection.class);

	// guards the fields below, and the share's users
	private final PooledWaitShare share;

	private @Nullable RedisConnection connection;

	private @Nullable CompletableFuture<Void> borrowing;

	private @Nullable Thread borrower;

	WaitConnection(PooledWaitShare share) {
		this.share = share;
	}

	/**
	 * The kept connection, borrowed first if there is none.
	 * @param connectionFactory where to borrow it from
	 * @param millis how long to wait for the borrow at most
	 * @return the connection, or {@code null} when the pool had none to give in time (the
	 * borrow goes on, for a later wait)
	 * @throws RuntimeException when the borrow failed
	 */
	@Nullable RedisConnection connection(RedisConnectionFactory connectionFactory, long millis) {
		CompletableFuture<Void> borrowed;
		synchronized (this.share) {
			if (this.connection != null) {
				return this.connection;
			}
			borrowed = (this.borrowing != null) ? this.borrowing : startBorrowing(connectionFactory);
		}
		try {
			borrowed.get(millis, TimeUnit.MILLISECONDS);
		}
		catch (TimeoutException ex) {
			return null;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return null;
		}
		catch (ExecutionException ex) {
			throw (ex.getCause() instanceof RuntimeException failure) ? failure
					: new IllegalStateException("Cannot borrow a connection to wait for queue messages", ex.getCause());
		}
		synchronized (this.share) {
			return this.connection;
		}
	}

	private CompletableFuture<Void> startBorrowing(RedisConnectionFactory connectionFactory) {
		CompletableFuture<Void> borrowed = new CompletableFuture<>();
		Thread thread = RedkitThreads.newThread("redkit-queue-wait-borrow", () -> borrow(connectionFactory, borrowed),
				true);
		this.borrowing = borrowed;
		this.borrower = thread;
		thread.start();
		return borrowed;
	}

	private void borrow(RedisConnectionFactory connectionFactory, CompletableFuture<Void> borrowed) {
		RedisConnection taken;
		try {
			taken = connectionFactory.getConnection();
			try {
				// a pipeline takes a dedicated connection from the pool at once, the one
				// blocking commands go on afterwards, and keeps it until closed
				taken.openPipeline();
				taken.closePipeline();
			}
			catch (RuntimeException ex) {
				closeQuietly(taken);
				throw ex;
			}
		}
		catch (RuntimeException ex) {
			synchronized (this.share) {
				borrowed(borrowed);
			}
			borrowed.completeExceptionally(ex);
			return;
		}
		boolean kept;
		synchronized (this.share) {
			// called off meanwhile (the last consumer stopped): back to the pool
			kept = borrowed(borrowed) && this.share.inUse();
			if (kept) {
				this.connection = taken;
			}
		}
		if (!kept) {
			closeQuietly(taken);
		}
		borrowed.complete(null);
	}

	/**
	 * Forgets a borrow that ended.
	 * @return whether it was the borrow under way, not one called off
	 */
	private boolean borrowed(CompletableFuture<Void> borrowed) {
		if (this.borrowing != borrowed) {
			return false;
		}
		this.borrowing = null;
		this.borrower = null;
		return true;
	}

	/**
	 * Closes the kept connection after a wait on it failed: the next wait borrows
	 * another.
	 */
	void discard() {
		RedisConnection failed;
		synchronized (this.share) {
			failed = this.connection;
			this.connection = null;
		}
		if (failed != null) {
			closeQuietly(failed);
		}
	}

	/**
	 * Hands this connection on to the next waiting consumer.
	 */
	void handOn() {
		boolean kept;
		synchronized (this.share) {
			kept = this.connection != null;
		}
		this.share.handOn(this, kept);
	}

	/**
	 * Gives the kept connection back and calls off a borrow under way; called with the
	 * share's lock held, once no consumer waits on it.
	 * @param kept where to put the connection, to close outside the lock
	 */
	void giveBack(List<RedisConnection> kept) {
		if (this.connection != null) {
			kept.add(this.connection);
			this.connection = null;
		}
		Thread thread = this.borrower;
		this.borrowing = null;
		this.borrower = null;
		if (thread != null) {
			// a borrower waiting for ever on a pool the application holds
			thread.interrupt();
		}
	}

	static void closeQuietly(RedisConnection connection) {
		try {
			connection.close();
		}
		catch (RuntimeException ex) {
			logger.debug("Cannot close a queue consumers' wait connection", ex);
		}
	}

}
