package io.github.redkit.benchmarks.migrating;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.github.redkit.lock.DistributedLocks;
import io.github.redkit.queue.QueueTemplate;
import org.redisson.api.RLock;
import org.redisson.api.RQueue;
import org.redisson.api.RedissonClient;

/**
 * The release between Redisson and Redkit of {@code docs/migrating/redisson.md}: a lock
 * taken under both libraries, and the old queue moved into Redkit's. Compiled against
 * both, not run.
 */
class RedissonTransition {

	private final RedissonClient redisson;

	private final DistributedLocks locks;

	private final QueueTemplate queues;

	RedissonTransition(RedissonClient redisson, DistributedLocks locks, QueueTemplate queues) {
		this.redisson = redisson;
		this.locks = locks;
		this.queues = queues;
	}

	long closeInvoice(long id) throws InterruptedException {
		// tag::both-locks[]
		// Redisson's lock first, as the instances still on the old release take it
		RLock old = redisson.getLock("invoice:" + id);
		if (!old.tryLock(10, TimeUnit.SECONDS)) {
			throw new IllegalStateException("busy");
		}
		try {
			return locks.withLock("invoice:" + id, Duration.ofSeconds(10), null,
					() -> invoices.close(id, DistributedLocks.current().orElseThrow().fencingToken()));
		}
		finally {
			old.unlock();
		}
		// end::both-locks[]
	}

	void drain() {
		// tag::drain[]
		// once nothing offers to or takes from the old queue any more
		RQueue<RedissonBefore.Receipt> old = redisson.getQueue("receipts");
		RedissonBefore.Receipt next;
		while ((next = old.peek()) != null) {
			// sent, then removed: a crash in between sends it twice, never loses it
			queues.send("receipts", next);
			old.remove(next);
		}
		// end::drain[]
	}

	private final Invoices invoices = new Invoices();

	static class Invoices {

		long close(long id, long fence) {
			return fence;
		}

	}

}
