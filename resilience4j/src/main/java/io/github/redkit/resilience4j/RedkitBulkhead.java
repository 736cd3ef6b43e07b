package io.github.redkit.resilience4j;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import io.github.redkit.concurrency.ConcurrencyLimiter;
import io.github.redkit.concurrency.ConcurrencyLimiterUnavailableException;
import io.github.redkit.concurrency.ConcurrencyPermit;
import io.github.redkit.concurrency.ConcurrencyPolicy;
import io.github.resilience4j.bulkhead.Bulkhead;
import io.github.resilience4j.bulkhead.BulkheadConfig;
import io.github.resilience4j.bulkhead.BulkheadFullException;
import io.github.resilience4j.bulkhead.event.BulkheadEvent;
import io.github.resilience4j.bulkhead.event.BulkheadOnCallFinishedEvent;
import io.github.resilience4j.bulkhead.event.BulkheadOnCallPermittedEvent;
import io.github.resilience4j.bulkhead.event.BulkheadOnCallRejectedEvent;
import io.github.resilience4j.core.EventConsumer;
import io.github.resilience4j.core.EventProcessor;
import io.github.resilience4j.core.exception.AcquirePermissionCancelledException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * A Resilience4j semaphore {@link Bulkhead} whose places are permits of a named Redkit
 * concurrency limit, taken for one identifier: the calls in flight on every instance that
 * names the same limit and identifier never exceed the limit. Each permit is leased and
 * renewed while held, so the places of a crashed instance come back when their leases
 * end.
 * <p>
 * Resilience4j gives a place back without saying which ({@link #onComplete()}), nor
 * always on the thread that took it: a call that ends never gives back a place in Redis
 * while a leased call holding it runs ({@link HeldPermits}). A caller waits for a place
 * at most the longer of {@code maxWaitDuration} and Redkit's timeout, asking Redis again
 * when this instance gives one back and at least every {@value #POLL_MILLIS} ms. Every
 * call is let in, refused ({@link BulkheadFullException}), or decided by the limit's
 * failure mode: a failure of Redkit's limiter of any other kind (it has stopped with the
 * application, a defect) refuses the call too, with a WARN, so that the fallbacks see it,
 * as {@link RedkitRateLimiter} does ({@link UndecidedCalls}).
 */
public class RedkitBulkhead implements Bulkhead {

	private static final Log logger = LogFactory.getLog(RedkitBulkhead.class);

	// how often a waiter asks Redis again for a place another instance may have given
	// back
	private static final long POLL_MILLIS = 20;

	private final String name;

	private final Map<String, String> tags;

	private final ConcurrencyLimiter limiter;

	private final String limitName;

	private final String key;

	private final HeldPermits held = new HeldPermits();

	private final ReentrantLock lock = new ReentrantLock();

	private final Condition givenBack = this.lock.newCondition();

	private final Events events = new Events();

	private final UndecidedCalls undecided;

	private volatile BulkheadConfig config;

	private volatile ConcurrencyPolicy policy;

	// the places left when this instance last asked, plus those it gave back since
	private volatile int lastSeenLeft;

	/**
	 * Creates a bulkhead.
	 * @param name the Resilience4j instance name
	 * @param config its Resilience4j configuration: the wait applies; the number of
	 * places is the Redkit limit's
	 * @param tags its tags
	 * @param limiter Redkit's concurrency limiter
	 * @param limitName the Redkit limit, under {@code redkit.concurrency-limit.limits}
	 * @param key the identifier the permits are counted for
	 * @throws IllegalArgumentException when the limit is unknown or the key empty
	 */
	public RedkitBulkhead(String name, BulkheadConfig config, Map<String, String> tags, ConcurrencyLimiter limiter,
			String limitName, String key) {
		Assert.hasText(name, "name must not be empty");
		Assert.notNull(config, "config must not be null");
		Assert.hasText(limitName, "limitName must not be empty");
		Assert.hasText(key, "key must not be empty");
		this.policy = limiter.policy(limitName)
			.orElseThrow(() -> new IllegalArgumentException("limitName: no Redkit concurrency limit named '" + limitName
					+ "' (configure it under redkit.concurrency-limit.limits." + limitName + ")"));
		this.name = name;
		this.config = config;
		this.tags = Map.copyOf(tags);
		this.limiter = limiter;
		this.limitName = limitName;
		this.key = key;
		this.lastSeenLeft = this.policy.limit();
		this.undecided = new UndecidedCalls(logger, "Bulkhead '" + name + "'", limitName,
				ConcurrencyLimiterUnavailableException.class);
	}

	/**
	 * The Redkit limit this bulkhead takes its places from.
	 * @return the limit name
	 */
	public String getLimitName() {
		return this.limitName;
	}

	/**
	 * The identifier the places are counted for.
	 * @return the key
	 */
	public String getKey() {
		return this.key;
	}

	/**
	 * Takes the new wait, and the new number of places for the calls this instance admits
	 * (each call is checked against the limit of the instance that makes it: change every
	 * instance alike).
	 * @param newConfig the new configuration
	 */
	@Override
	public void changeConfig(BulkheadConfig newConfig) {
		Assert.notNull(newConfig, "newConfig must not be null");
		int places = newConfig.getMaxConcurrentCalls();
		Assert.isTrue(places >= 1, () -> "maxConcurrentCalls must be at least 1 (was " + places + ")");
		this.policy = new ConcurrencyPolicy(newConfig.getMaxConcurrentCalls(), this.policy.lease());
		this.config = newConfig;
	}

	@Override
	public boolean tryAcquirePermission() {
		return admit();
	}

	@Override
	public void acquirePermission() {
		if (admit()) {
			return;
		}
		if (Thread.currentThread().isInterrupted()) {
			throw new AcquirePermissionCancelledException();
		}
		throw BulkheadFullException.createBulkheadFullException(this);
	}

	@Override
	public void releasePermission() {
		ConcurrencyPermit permit = this.held.giveBack();
		if (permit == null) {
			// more releases than places taken: nothing to give back
			return;
		}
		boolean leased = permit.acquired();
		permit.close();
		if (leased) {
			this.lastSeenLeft = Math.min(this.lastSeenLeft + 1, this.policy.limit());
		}
		this.lock.lock();
		try {
			this.givenBack.signalAll();
		}
		finally {
			this.lock.unlock();
		}
	}

	@Override
	public void onComplete() {
		releasePermission();
		if (this.events.hasConsumers()) {
			this.events.consumeEvent(new BulkheadOnCallFinishedEvent(this.name));
		}
	}

	@Override
	public String getName() {
		return this.name;
	}

	/**
	 * The Resilience4j configuration, with the number of places of the Redkit limit.
	 * @return the configuration
	 */
	@Override
	public BulkheadConfig getBulkheadConfig() {
		return BulkheadConfig.from(this.config).maxConcurrentCalls(this.policy.limit()).build();
	}

	/**
	 * The metrics: the places left are those Redis reported when this instance last took
	 * (or was refused) a place, plus those it gave back since.
	 * @return the metrics
	 */
	@Override
	public Metrics getMetrics() {
		return new Metrics() {

			@Override
			public int getAvailableConcurrentCalls() {
				return Math.max(RedkitBulkhead.this.lastSeenLeft, 0);
			}

			@Override
			public int getMaxAllowedConcurrentCalls() {
				return RedkitBulkhead.this.policy.limit();
			}

		};
	}

	@Override
	public Map<String, String> getTags() {
		return this.tags;
	}

	@Override
	public EventPublisher getEventPublisher() {
		return this.events;
	}

	@Override
	public String toString() {
		return "RedkitBulkhead{name='" + this.name + "', limit='" + this.limitName + "'}";
	}

	private boolean admit() {
		ConcurrencyPermit permit = enter();
		if (permit != null) {
			this.held.add(permit);
		}
		if (this.events.hasConsumers()) {
			try {
				this.events.consumeEvent((permit != null) ? new BulkheadOnCallPermittedEvent(this.name)
						: new BulkheadOnCallRejectedEvent(this.name));
			}
			catch (RuntimeException | Error ex) {
				// the caller sees the consumer's failure and never calls onComplete(): a
				// place kept would stay taken on every instance while this one runs
				if (permit != null && this.held.forget(permit)) {
					permit.close();
				}
				throw ex;
			}
		}
		return permit != null;
	}

	/**
	 * Takes a place, waiting at most the longer of {@code maxWaitDuration} and Redkit's
	 * timeout: the first ask waits for Redis as Redkit's timeout says, the next ones no
	 * longer than the wait has left.
	 */
	private @Nullable ConcurrencyPermit enter() {
		long deadline = System.nanoTime() + this.config.getMaxWaitDuration().toNanos();
		Optional<ConcurrencyPermit> permit = take();
		while (true) {
			if (permit == null) {
				return null;
			}
			if (permit.isPresent()) {
				this.lastSeenLeft = (int) Math.max(permit.get().remaining(), 0);
				return permit.get();
			}
			this.lastSeenLeft = 0;
			long left = deadline - System.nanoTime();
			if (left <= 0 || !awaitGiveBack(Math.min(left, TimeUnit.MILLISECONDS.toNanos(POLL_MILLIS)))) {
				return null;
			}
			left = deadline - System.nanoTime();
			if (left <= 0) {
				return null;
			}
			permit = takeWithin(left);
		}
	}

	/**
	 * One ask, as long as Redkit's timeout allows.
	 * @return the answer, {@code null} when refused (the failure mode, or the limiter
	 * could not decide)
	 */
	private @Nullable Optional<ConcurrencyPermit> take() {
		return this.undecided.ask(() -> this.limiter.tryAcquire(this.limitName, this.policy, this.key));
	}

	/**
	 * One ask, cut when the wait is over: a place Redis gives after that is given back
	 * (Redkit's limiter closes a permit nobody waits for).
	 * @return the answer, {@code null} when refused (the failure mode, the wait over, the
	 * thread interrupted, or the limiter could not decide)
	 */
	private @Nullable Optional<ConcurrencyPermit> takeWithin(long nanos) {
		CompletableFuture<Optional<ConcurrencyPermit>> answer = this.undecided
			.ask(() -> this.limiter.tryAcquireAsync(this.limitName, this.limitName, this.policy, this.key));
		if (answer == null) {
			return null;
		}
		try {
			return answer.get(nanos, TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException ex) {
			answer.cancel(false);
			return answeredMeanwhile(answer);
		}
		catch (InterruptedException ex) {
			answer.cancel(false);
			Thread.currentThread().interrupt();
			Optional<ConcurrencyPermit> late = answeredMeanwhile(answer);
			if (late != null) {
				late.ifPresent(ConcurrencyPermit::close);
			}
			return null;
		}
		catch (ExecutionException | CancellationException ex) {
			this.undecided.refused(ex);
			return null;
		}
	}

	// the answer came between the timeout and the cancel: a place taken is kept
	private static @Nullable Optional<ConcurrencyPermit> answeredMeanwhile(
			CompletableFuture<Optional<ConcurrencyPermit>> answer) {
		if (answer.isDone() && !answer.isCompletedExceptionally()) {
			Optional<ConcurrencyPermit> permit = answer.join();
			return permit.isPresent() ? permit : null;
		}
		return null;
	}

	private boolean awaitGiveBack(long nanos) {
		this.lock.lock();
		try {
			this.givenBack.awaitNanos(nanos);
			return true;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
		finally {
			this.lock.unlock();
		}
	}

	private static final class Events extends EventProcessor<BulkheadEvent>
			implements EventPublisher, EventConsumer<BulkheadEvent> {

		@Override
		public EventPublisher onCallPermitted(EventConsumer<BulkheadOnCallPermittedEvent> consumer) {
			registerConsumer(BulkheadOnCallPermittedEvent.class.getName(), consumer);
			return this;
		}

		@Override
		public EventPublisher onCallRejected(EventConsumer<BulkheadOnCallRejectedEvent> consumer) {
			registerConsumer(BulkheadOnCallRejectedEvent.class.getName(), consumer);
			return this;
		}

		@Override
		public EventPublisher onCallFinished(EventConsumer<BulkheadOnCallFinishedEvent> consumer) {
			registerConsumer(BulkheadOnCallFinishedEvent.class.getName(), consumer);
			return this;
		}

		@Override
		public void consumeEvent(BulkheadEvent event) {
			processEvent(event);
		}

	}

}
