package io.github.redkit.docs;

import java.time.Duration;
import java.time.LocalDate;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.redkit.lock.DistributedLock;
import io.github.redkit.lock.DistributedLocks;
import io.github.redkit.lock.LockHandle;
import io.github.redkit.lock.LockListener;
import io.github.redkit.lock.ReactiveDistributedLocks;
import io.github.redkit.test.boot.RedkitTest;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.stereotype.Component;
import org.springframework.stereotype.Service;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.DefaultTransactionStatus;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The snippets of {@code docs/locks.md}: its configuration, the annotated method inside a
 * transaction, the bean, a lock listener and the reactive face.
 */
@SpringBootTest(classes = LocksDocsTests.Application.class, webEnvironment = SpringBootTest.WebEnvironment.NONE,
		properties = "spring.config.location=classpath:docs/locks.yml")
@RedkitTest
class LocksDocsTests {

	@Autowired
	Billing billing;

	@Autowired
	Invoices invoices;

	@Autowired
	DistributedLocks locks;

	@Autowired
	ReactiveDistributedLocks reactiveLocks;

	@Autowired
	Alerts alerts;

	@Test
	void theLockIsHeldAroundTheTransactionAndFencesTheStore() {
		Invoice first = this.billing.charge("ann", 100);
		Invoice second = this.billing.charge("ann", 200);
		assertThat(second.fence()).isGreaterThan(first.fence());
		assertThat(this.invoices.savedInTransaction()).endsWith(true, true);
	}

	@Test
	void theBeanTakesExtendsAndReleases() {
		assertThat(report(LocalDate.of(2026, 11, 25), "totals")).isTrue();
		assertThat(this.locks.tryLock("report:2026-11-25", Duration.ZERO, null)).as("released").isPresent();
		assertThat(withLock("bob").userId()).isEqualTo("bob");
	}

	boolean report(LocalDate day, String report) {
		// tag::try-lock[]
		try (LockHandle lock = locks.tryLock("report:" + day, Duration.ofSeconds(5), Duration.ofMinutes(2))
			.orElseThrow(() -> new IllegalStateException("busy"))) {
			storage.write(report, lock.fencingToken());
			if (!lock.extend(Duration.ofMinutes(2))) {
				return false; // lost: stop
			}
		}
		// end::try-lock[]
		return true;
	}

	Invoice withLock(String userId) {
		// tag::with-lock[]
		Invoice invoice = locks.withLock("billing:" + userId, Duration.ofSeconds(10), null, () -> charge(userId));
		// end::with-lock[]
		return invoice;
	}

	private final Storage storage = new Storage();

	private Invoice charge(String userId) {
		return this.invoices.save(new Invoice(userId, 1, DistributedLocks.current().orElseThrow().fencingToken()));
	}

	@Test
	void aLostLeaseRaisesAnAlert() {
		String key = "short:" + System.nanoTime();
		LockHandle lock = this.locks.tryLock(key, Duration.ZERO, Duration.ofMillis(50)).orElseThrow();
		// once Redis ended the lease, another holder takes the lock, and the first one's
		// release finds it lost
		Optional<LockHandle> next = Optional.empty();
		long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
		while (next.isEmpty() && System.nanoTime() < deadline) {
			next = this.locks.tryLock(key, Duration.ZERO, null);
		}
		assertThat(next).isPresent();
		lock.close();
		next.get().close();
		// the listener hears of the loss on the thread that found it
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(List.copyOf(this.alerts.raised())).singleElement()
				.asString()
				.startsWith("lock ")
				.contains(" lost, fencing token "));
	}

	@Test
	void theReactiveFaceHoldsTheLockAroundAPublisher() {
		assertThat(settle(LocalDate.of(2026, 11, 25)).blockFirst()).startsWith("settled 2026-11-25 with ");
	}

	reactor.core.publisher.Flux<String> settle(LocalDate day) {
		// tag::reactive[]
		return reactiveLocks.withLock("settlement:" + day, Duration.ofSeconds(5), null,
				() -> ReactiveDistributedLocks.current().flatMap((lock) -> ledger.settle(day, lock.fencingToken())));
		// end::reactive[]
	}

	private final Ledger ledger = new Ledger();

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import({ Billing.class, Invoices.class, Alerts.class })
	static class Application {

		// tag::listener[]
		@Bean
		LockListener alertOnLostLocks(Alerts alerts) {
			return (lock) -> alerts.raise("lock " + lock.name() + " lost, fencing token " + lock.fencingToken());
		}
		// end::listener[]

		@Bean
		AbstractPlatformTransactionManager transactionManager() {
			return new InMemoryTransactionManager();
		}

	}

	static class Storage {

		void write(String report, long fence) {
		}

	}

	static class Ledger {

		Mono<String> settle(LocalDate day, long fence) {
			return Mono.just("settled " + day + " with " + fence);
		}

	}

	/** Transactions with nothing to commit: enough for {@code @Transactional} to run. */
	static class InMemoryTransactionManager extends AbstractPlatformTransactionManager {

		@Override
		protected Object doGetTransaction() {
			return new Object();
		}

		@Override
		protected void doBegin(Object transaction, TransactionDefinition definition) {
		}

		@Override
		protected void doCommit(DefaultTransactionStatus status) {
		}

		@Override
		protected void doRollback(DefaultTransactionStatus status) {
		}

	}

}

record Invoice(String userId, long amount, long fence) {
}

@Component
class Invoices {

	private final List<Boolean> inTransaction = new CopyOnWriteArrayList<>();

	private final Map<String, Long> highestFence = new HashMap<>();

	synchronized Invoice save(Invoice invoice) {
		long highest = this.highestFence.getOrDefault(invoice.userId(), 0L);
		if (invoice.fence() < highest) {
			throw new IllegalStateException("fencing token " + invoice.fence() + " is older than " + highest);
		}
		this.highestFence.put(invoice.userId(), invoice.fence());
		this.inTransaction.add(TransactionSynchronizationManager.isActualTransactionActive());
		return invoice;
	}

	List<Boolean> savedInTransaction() {
		return this.inTransaction;
	}

}

@Component
class Alerts {

	private final List<String> raised = new CopyOnWriteArrayList<>();

	void raise(String alert) {
		this.raised.add(alert);
	}

	List<String> raised() {
		return this.raised;
	}

}

// tag::billing[]
@Service
class Billing {

	private final Invoices invoices;

	Billing(Invoices invoices) {
		this.invoices = invoices;
	}

	// no leaseTime: 30s, renewed
	@DistributedLock(key = "'billing:' + #userId", waitTime = "10s")
	@Transactional
	public Invoice charge(String userId, long amount) {
		long fence = DistributedLocks.current().orElseThrow().fencingToken();
		// the store refuses a lower token
		return invoices.save(new Invoice(userId, amount, fence));
	}

}
// end::billing[]
