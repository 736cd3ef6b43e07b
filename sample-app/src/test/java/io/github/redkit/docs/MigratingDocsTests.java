package io.github.redkit.docs;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.redkit.concurrency.ConcurrencyLimitExceededException;
import io.github.redkit.concurrency.ConcurrencyLimited;
import io.github.redkit.concurrency.ConcurrencyLimiter;
import io.github.redkit.concurrency.ConcurrencyPermit;
import io.github.redkit.lock.DistributedLocks;
import io.github.redkit.lock.LockHandle;
import io.github.redkit.queue.QueueListener;
import io.github.redkit.queue.QueueTemplate;
import io.github.redkit.ratelimit.RateLimitDecision;
import io.github.redkit.ratelimit.RateLimitExceededException;
import io.github.redkit.ratelimit.RateLimited;
import io.github.redkit.ratelimit.RateLimiter;
import io.github.redkit.test.boot.RedkitTest;
import io.github.redkit.testsupport.ScannedKeys;
import jakarta.servlet.http.HttpServletRequest;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.MutablePropertySources;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.stereotype.Component;
import org.springframework.stereotype.Service;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Redkit's side of the pages under {@code docs/migrating/}, on one application: the
 * limits, locks, permits and queue that replace a peer's, the keys they write, and that a
 * peer's keys of the same names neither block nor are touched by Redkit's.
 */
@SpringBootTest(classes = MigratingDocsTests.Application.class, webEnvironment = SpringBootTest.WebEnvironment.NONE,
		properties = "spring.config.location=classpath:docs/migrating.yml")
@RedkitTest
class MigratingDocsTests {

	@Autowired
	RateLimiter rateLimiter;

	@Autowired
	DistributedLocks locks;

	@Autowired
	ConcurrencyLimiter concurrencyLimiter;

	@Autowired
	QueueTemplate queues;

	@Autowired
	StringRedisTemplate redis;

	@Autowired
	ApiController api;

	@Autowired
	QuoteClient quotes;

	@Autowired
	ReceiptMailer mailer;

	@Autowired
	MailedReceipts mailed;

	// Bucket4j

	@Test
	void aBucketBecomesANamedLimitUnderOneKeyPerIdentifier() {
		// the bucket holds 100 and refills a token every 600 ms: a slow machine sees a
		// few more before the first refusal
		long start = System.nanoTime();
		int served = 0;
		String answer = consume("203.0.113.7");
		while (answer.equals("ok") && served < 300) {
			served++;
			answer = consume("203.0.113.7");
		}
		assertThat(answer).startsWith("retry after PT");
		assertThat(served).isBetween(100, 100 + refilledSince(start));
		MockHttpServletRequest request = new MockHttpServletRequest();
		request.setRemoteAddr("198.51.100.1");
		start = System.nanoTime();
		RateLimitExceededException refused = null;
		for (served = 0; served < 300 && refused == null; served++) {
			try {
				assertThat(this.api.orders(request)).containsExactly("order-1");
			}
			catch (RateLimitExceededException ex) {
				refused = ex;
			}
		}
		assertThat(refused).isNotNull();
		assertThat(refused.getRetryAfter()).isPositive();
		assertThat(served - 1).isBetween(100, 100 + refilledSince(start));
		// one key per identifier holds every window
		assertThat(ScannedKeys.matching(this.redis, "migrating:ratelimit:api:*")).containsExactlyInAnyOrder(
				"migrating:ratelimit:api:{ip%3A203.0.113.7}:tb", "migrating:ratelimit:api:{ip%3A198.51.100.1}:tb");
	}

	private static int refilledSince(long start) {
		return (int) (Duration.ofNanos(System.nanoTime() - start).toMillis() / 600) + 1;
	}

	String consume(String ip) {
		// tag::bucket4j-bean[]
		RateLimitDecision decision = rateLimiter.tryAcquire("api", "ip:" + ip);
		if (!decision.allowed()) {
			return "retry after " + decision.retryAfter();
		}
		// end::bucket4j-bean[]
		return "ok";
	}

	// Redisson

	@Test
	void aLockAPermitARateAndAQueueReplaceRedissons() {
		assertThat(closeInvoice(42)).isPositive();
		assertThat(this.redis.hasKey("migrating:lock:{invoice%3A42}")).as("the lock's record keeps its fence").isTrue();
		for (int i = 0; i < 5; i++) {
			assertThat(sendSms("ann")).isTrue();
		}
		assertThat(sendSms("ann")).isFalse();
		assertThat(ScannedKeys.matching(this.redis, "migrating:ratelimit:sms:*"))
			.containsExactly("migrating:ratelimit:sms:{user%3Aann}:sl");
		assertThat(export("acme")).isEqualTo("exported acme");
		assertThat(ScannedKeys.matching(this.redis, "migrating:concurrency:*")).as("given back").isEmpty();
		this.mailer.mail(new Receipt("ann", 1200));
		await().atMost(Duration.ofSeconds(10)).until(() -> this.mailed.contains(new Receipt("ann", 1200)));
	}

	long closeInvoice(long id) {
		// tag::redisson-lock[]
		// null lease: redkit.lock.lease-time, renewed while held (Redisson's watchdog)
		try (LockHandle lock = locks.tryLock("invoice:" + id, Duration.ofSeconds(10), null)
			.orElseThrow(() -> new IllegalStateException("busy"))) {
			return invoices.close(id, lock.fencingToken());
		}
		// end::redisson-lock[]
	}

	private final Invoices invoices = new Invoices();

	boolean sendSms(String userId) {
		// tag::redisson-rate[]
		if (!rateLimiter.tryAcquire("sms", "user:" + userId).allowed()) {
			return false;
		}
		// end::redisson-rate[]
		return true;
	}

	String export(String tenant) {
		// tag::redisson-semaphore[]
		Optional<ConcurrencyPermit> permit = concurrencyLimiter.tryAcquire("exports", tenant);
		if (permit.isEmpty()) {
			return "busy";
		}
		try (ConcurrencyPermit held = permit.get()) {
			return exporter.export(tenant);
		}
		// end::redisson-semaphore[]
	}

	private final Exporter exporter = new Exporter();

	// the peers' keys of the same names: no exclusion across libraries, nothing touched

	@Test
	void aPeersLockOfTheSameNameExcludesNothing() {
		List<String> peerKeys = List.of("invoice:7", "job-lock:default:nightly-report", "app-locks:order-7");
		try {
			this.redis.opsForHash().put("invoice:7", "a1b2c3:1", "1"); // Redisson's RLock
			this.redis.opsForValue().set("job-lock:default:nightly-report", "ADDED:2026-11-29T02:00:00Z@host");
			this.redis.opsForValue().set("app-locks:order-7", "client-id"); // Spring
																			// Integration
			for (String name : List.of("invoice:7", "nightly-report", "integration:order-7")) {
				Optional<LockHandle> lock = this.locks.tryLock(name, Duration.ZERO, Duration.ofSeconds(5));
				assertThat(lock).as(name).isPresent();
				lock.get().close();
			}
			assertThat(this.redis.opsForHash().get("invoice:7", "a1b2c3:1")).isEqualTo("1");
			assertThat(this.redis.opsForValue().get("job-lock:default:nightly-report")).startsWith("ADDED:");
			assertThat(this.redis.opsForValue().get("app-locks:order-7")).isEqualTo("client-id");
		}
		finally {
			this.redis.delete(peerKeys);
		}
	}

	// Resilience4j

	@Test
	void theAnnotationsLimitEveryInstanceTogetherAndTheCallerFallsBack() {
		// 10 a second: the eleventh call within the second falls back (a slow machine may
		// see a call leave the window first)
		int served = 0;
		while (served < 100 && this.quotes.quoteOrCached("ACME").equals("ACME 101.5")) {
			served++;
		}
		assertThat(served).isBetween(10, 99);
		assertThat(this.quotes.quoteOrCached("ACME")).isEqualTo("ACME cached");
	}

	// the peers' own configuration, shown beside Redkit's: well-formed, with the values
	// the
	// pages compare

	@Test
	void thePeersConfigurationIsTheOnePagesCompare() throws Exception {
		Binder bucket4j = peer("bucket4j.yml");
		assertThat(bucket4j.bind("bucket4j.filters[0].rate-limits[0].bandwidths[0].capacity", Long.class).get())
			.isEqualTo(100);
		assertThat(bucket4j.bind("bucket4j.filters[0].rate-limits[0].bandwidths[1].capacity", Long.class).get())
			.isEqualTo(1000);
		Binder resilience4j = peer("resilience4j.yml");
		assertThat(resilience4j.bind("resilience4j.ratelimiter.instances.backend.limit-for-period", Long.class).get())
			.isEqualTo(10);
		assertThat(resilience4j.bind("resilience4j.bulkhead.instances.backend.max-concurrent-calls", Long.class).get())
			.isEqualTo(5);
	}

	private static Binder peer(String file) throws Exception {
		MutablePropertySources sources = new MutablePropertySources();
		for (PropertySource<?> source : new YamlPropertySourceLoader().load(file,
				new ClassPathResource("docs/migrating-peers/" + file))) {
			sources.addLast(source);
		}
		return new Binder(ConfigurationPropertySources.from(sources));
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import({ ApiController.class, Backend.class, QuoteClient.class, ReceiptMailer.class, ReceiptListener.class,
			MailedReceipts.class })
	static class Application {

	}

	// tag::bucket4j-controller[]
	@RestController
	static class ApiController {

		// was a Bucket4j filter on url /api/.* with cache-key getRemoteAddr()
		@GetMapping("/api/orders")
		@RateLimited(value = "api", key = "'ip:' + #request.remoteAddr")
		public List<String> orders(HttpServletRequest request) {
			return List.of("order-1");
		}

	}
	// end::bucket4j-controller[]

	// tag::resilience4j-service[]
	@Service
	static class Backend {

		// was @RateLimiter(name = "backend") @Bulkhead(name = "backend"): now counted
		// across instances; Resilience4j's @CircuitBreaker and @Retry stay as they are
		@RateLimited("backend")
		@ConcurrencyLimited("backend")
		public String quote(String symbol) {
			return symbol + " 101.5";
		}

	}
	// end::resilience4j-service[]

	@Service
	static class QuoteClient {

		private final Backend backend;

		QuoteClient(Backend backend) {
			this.backend = backend;
		}

		// tag::resilience4j-fallback[]
		String quoteOrCached(String symbol) {
			try {
				return backend.quote(symbol);
			}
			catch (RateLimitExceededException | ConcurrencyLimitExceededException ex) {
				return symbol + " cached"; // what the fallbackMethod returned
			}
		}
		// end::resilience4j-fallback[]

	}

	// tag::redisson-queue[]
	record Receipt(String userId, long cents) {
	}

	@Service
	static class ReceiptMailer {

		private final QueueTemplate queues;

		ReceiptMailer(QueueTemplate queues) {
			this.queues = queues;
		}

		// was redisson.getBlockingQueue("receipts").offer(receipt)
		void mail(Receipt receipt) {
			queues.send("receipts", receipt);
		}

	}
	// end::redisson-queue[]

	// tag::redisson-listener[]
	@Component
	static class ReceiptListener {

		private final MailedReceipts mailed;

		ReceiptListener(MailedReceipts mailed) {
			this.mailed = mailed;
		}

		// was a thread looping on queue.take(): a message is now acknowledged when
		// this returns, and delivered again when it throws (then dead-lettered)
		@QueueListener(queue = "receipts")
		void send(Receipt receipt) {
			mailed.add(receipt);
		}

	}
	// end::redisson-listener[]

	@Component
	static class MailedReceipts {

		private final List<Receipt> receipts = new CopyOnWriteArrayList<>();

		void add(Receipt receipt) {
			this.receipts.add(receipt);
		}

		boolean contains(Receipt receipt) {
			return this.receipts.contains(receipt);
		}

	}

	static class Invoices {

		long close(long id, long fence) {
			return fence;
		}

	}

	static class Exporter {

		String export(String tenant) {
			return "exported " + tenant;
		}

	}

}
