package io.github.redkit.core.internal;

import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * The one way a family of Redkit's gauges reads Redis: never while the registry is
 * scraped. A scrape gets the last value read and, when that is older than the refresh
 * interval, hands the next read to the family's one thread, so that at most one read of
 * the family runs at a time and a Redis that does not answer cannot make the scrape time
 * out. A value is unknown ({@code null}, NaN on a gauge) before its first read, after a
 * read that failed, and while a read has been under way for longer than the refresh
 * interval: a Redis that stopped answering is not shown as the last value it gave. Closed
 * with the application context, its own thread ends at once, a read under way
 * interrupted; a scrape after that reads nothing more.
 */
public final class BackgroundReads implements AutoCloseable {

	/** The refresh interval when none is configured. */
	public static final Duration DEFAULT_REFRESH = Duration.ofSeconds(10);

	private final Executor executor;

	// the family's own thread, ended on close; an executor given is its owner's to end
	private final @Nullable ExecutorService ownExecutor;

	private final long refreshNanos;

	/**
	 * Creates the reads of one gauge family, on a thread of its own made when needed.
	 * @param threadName the name of the family's thread
	 * @param refresh how old a value may be before a scrape asks for the next
	 * @throws IllegalArgumentException when {@code refresh} is not positive
	 */
	public BackgroundReads(String threadName, Duration refresh) {
		this(refresh, RedkitThreads.bounded(RedkitThreads.factory(threadName), 1), true);
	}

	/**
	 * Creates the reads of one gauge family on an executor.
	 * @param refresh how old a value may be before a scrape asks for the next
	 * @param executor runs the reads; one thread keeps one read of the family at a time
	 * @throws IllegalArgumentException when {@code refresh} is not positive
	 */
	public BackgroundReads(Duration refresh, Executor executor) {
		this(refresh, executor, false);
	}

	private BackgroundReads(Duration refresh, Executor executor, boolean own) {
		if (refresh.isNegative() || refresh.isZero()) {
			throw new IllegalArgumentException("refresh must be positive (was " + refresh + ")");
		}
		this.refreshNanos = refresh.toNanos();
		this.executor = executor;
		this.ownExecutor = (own && executor instanceof ExecutorService service) ? service : null;
	}

	/**
	 * A value of the family, read in the background.
	 * @param <T> its type
	 * @param read reads it from Redis; may block, may throw
	 * @return the value
	 */
	public <T> Value<T> value(Supplier<T> read) {
		return new Value<>(read);
	}

	/**
	 * Ends the family's own thread, interrupting a read under way, and waits a moment for
	 * it to end: idle, it would otherwise live on for half a minute after the application
	 * context closed.
	 */
	@Override
	public void close() {
		ExecutorService own = this.ownExecutor;
		if (own == null) {
			return;
		}
		own.shutdownNow();
		try {
			own.awaitTermination(1, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * One value read in the background, kept with the time it was read.
	 *
	 * @param <T> its type
	 */
	public final class Value<T> {

		private final Supplier<T> read;

		private final AtomicBoolean reading = new AtomicBoolean();

		private volatile @Nullable T last;

		// when the value was read (0: none) and when the read under way was asked for
		private volatile long lastAt;

		private volatile long askedAt;

		private Value(Supplier<T> read) {
			this.read = read;
		}

		/**
		 * The last value read, never waiting for Redis; asks for the next read when it is
		 * older than the refresh interval.
		 * @return the value, or {@code null} when unknown
		 */
		public @Nullable T get() {
			long now = System.nanoTime();
			if (this.reading.get()) {
				return (now - this.askedAt > BackgroundReads.this.refreshNanos) ? null : this.last;
			}
			if (this.lastAt == 0 || now - this.lastAt > BackgroundReads.this.refreshNanos) {
				readLater(now);
			}
			return this.last;
		}

		/**
		 * How long ago the value was read.
		 * @return its age, or {@code null} when there is none
		 */
		public @Nullable Duration age() {
			long at = this.lastAt;
			return (at != 0) ? Duration.ofNanos(System.nanoTime() - at) : null;
		}

		private void readLater(long now) {
			if (!this.reading.compareAndSet(false, true)) {
				return;
			}
			this.askedAt = now;
			try {
				BackgroundReads.this.executor.execute(this::read);
			}
			catch (RuntimeException ex) {
				this.reading.set(false);
			}
		}

		private void read() {
			try {
				this.last = this.read.get();
				this.lastAt = Math.max(System.nanoTime(), 1);
			}
			catch (RuntimeException ex) {
				// unknown, as a gauge that cannot be read, and read again at the next
				// scrape: a Redis back is seen at once
				this.last = null;
				this.lastAt = 0;
			}
			finally {
				this.reading.set(false);
			}
		}

	}

}
