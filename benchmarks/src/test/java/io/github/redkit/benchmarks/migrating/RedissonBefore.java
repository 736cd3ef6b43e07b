package io.github.redkit.benchmarks.migrating;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.redisson.api.RBlockingQueue;
import org.redisson.api.RLock;
import org.redisson.api.RRateLimiter;
import org.redisson.api.RSemaphore;
import org.redisson.api.RateType;
import org.redisson.api.RedissonClient;

/**
 * The Redisson side of {@code docs/migrating/redisson.md}: a lock, a rate limiter, a
 * semaphore and a blocking queue. Compiled against Redisson, not run.
 */
class RedissonBefore {

	private final RedissonClient redisson;

	RedissonBefore(RedissonClient redisson) {
		this.redisson = redisson;
	}

	long closeInvoice(long id) throws InterruptedException {
		// tag::lock[]
		// no lease: lockWatchdogTimeout (30 s), renewed by the watchdog while held
		RLock lock = redisson.getLock("invoice:" + id);
		if (!lock.tryLock(10, TimeUnit.SECONDS)) {
			throw new IllegalStateException("busy");
		}
		try {
			return invoices.close(id);
		}
		finally {
			lock.unlock();
		}
		// end::lock[]
	}

	boolean sendSms(String userId) {
		// tag::rate[]
		RRateLimiter limiter = redisson.getRateLimiter("sms:" + userId);
		limiter.trySetRate(RateType.OVERALL, 5, Duration.ofMinutes(1), Duration.ofHours(1));
		if (!limiter.tryAcquire()) {
			return false;
		}
		// end::rate[]
		return true;
	}

	String export(String tenant) {
		// tag::semaphore[]
		RSemaphore semaphore = redisson.getSemaphore("exports:" + tenant);
		semaphore.trySetPermits(4);
		if (!semaphore.tryAcquire()) {
			return "busy";
		}
		try {
			return exporter.export(tenant);
		}
		finally {
			semaphore.release();
		}
		// end::semaphore[]
	}

	void mail(Receipt receipt) {
		// tag::queue[]
		RBlockingQueue<Receipt> queue = redisson.getBlockingQueue("receipts");
		queue.offer(receipt);
		// end::queue[]
	}

	void consume() throws InterruptedException {
		RBlockingQueue<Receipt> queue = redisson.getBlockingQueue("receipts");
		// tag::take[]
		while (!Thread.currentThread().isInterrupted()) {
			// removed from Redis: lost if this process dies now
			Receipt receipt = queue.take();
			mailer.send(receipt);
		}
		// end::take[]
	}

	private final Invoices invoices = new Invoices();

	private final Exporter exporter = new Exporter();

	private final Mailer mailer = new Mailer();

	record Receipt(String userId, long cents) {
	}

	static class Invoices {

		long close(long id) {
			return id;
		}

	}

	static class Exporter {

		String export(String tenant) {
			return tenant;
		}

	}

	static class Mailer {

		void send(Receipt receipt) {
		}

	}

}
