package io.github.redkit.cache;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.github.redkit.cache.CacheTestApp.Catalog;
import io.github.redkit.cache.CacheTestApp.Product;
import io.github.redkit.testsupport.CommandStats;
import io.github.redkit.testsupport.Exercises;
import io.github.redkit.testsupport.RedisServer;
import io.github.redkit.testsupport.RedisTopologies;
import io.github.redkit.testsupport.RedisTopology;
import io.micrometer.core.instrument.MeterRegistry;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.AfterParameterizedClassInvocation;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;

import org.springframework.cache.CacheManager;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

@ParameterizedClass
@RedisTopologies(exercises = Exercises.SCRIPTS)
class RedkitCacheTests {

	/**
	 * The caches' settings, and those of the tests that share one application: no jitter,
	 * clearing in batches of 50, a hot cache refreshed early. Each test caches keys of
	 * its own.
	 */
	private static final String[] PROPERTIES = { "redkit.cache.default-ttl=10m", "redkit.cache.caches.products.ttl=1h",
			"redkit.cache.caches.short-lived.ttl=30s", "redkit.cache.caches.everything-else.ttl=10m",
			"redkit.cache.ttl-jitter=0%", "redkit.cache.clear-batch-size=50", "redkit.cache.caches.hot.ttl=2s",
			"redkit.cache.caches.hot.early-refresh=true", "redkit.cache.early-refresh.beta=200" };

	// one application per topology: starting one per test was most of what the class
	// cost
	private static @Nullable ConfigurableApplicationContext shared;

	@Parameter
	RedisTopology topology;

	private RedisServer redis;

	private StringRedisTemplate raw;

	@BeforeParameterizedClassInvocation
	static void startTheSharedApplication(RedisTopology topology) {
		shared = CacheTestApp.start(topology.server(), PROPERTIES);
	}

	@AfterParameterizedClassInvocation
	static void closeTheSharedApplication() {
		if (shared != null) {
			shared.close();
			shared = null;
		}
	}

	@BeforeEach
	void connect() {
		this.redis = this.topology.server();
		this.raw = new StringRedisTemplate(this.topology.connectionFactory());
		this.raw.afterPropertiesSet();
	}

	@AfterEach
	void loadAtFullSpeedAgain() {
		shared().getBean(Catalog.class).slowDown(Duration.ZERO, () -> {
		});
	}

	private static ConfigurableApplicationContext shared() {
		ConfigurableApplicationContext context = shared;
		if (context == null) {
			throw new IllegalStateException("The shared application did not start");
		}
		return context;
	}

	@Test
	void eachCacheGetsItsOwnTtlObservedWithPttl() {
		ConfigurableApplicationContext context = shared();
		Catalog catalog = context.getBean(Catalog.class);
		String id = UUID.randomUUID().toString();
		catalog.product(id);
		catalog.shortLived(id);
		catalog.defaults(id);
		assertThat(pttl("products::" + id)).isBetween(3_590_000L, 3_600_000L);
		assertThat(pttl("short-lived::" + id)).isBetween(29_000L, 30_000L);
		assertThat(pttl("everything-else::" + id)).isBetween(599_000L, 600_000L);
	}

	@Test
	void jitterSpreadsExpiriesBelowTheConfiguredTtl() {
		CacheTestApp.runner(this.redis, PROPERTIES).withPropertyValues("redkit.cache.ttl-jitter=20%").run((context) -> {
			Catalog catalog = context.getBean(Catalog.class);
			List<Long> ttls = new ArrayList<>();
			String run = UUID.randomUUID().toString();
			for (int i = 0; i < 40; i++) {
				catalog.shortLived(run + "-" + i);
				long ttl = pttl("short-lived::" + run + "-" + i);
				assertThat(ttl).as("TTL of entry %d", i).isPositive();
				ttls.add(ttl);
			}
			assertThat(ttls).allSatisfy((ttl) -> assertThat(ttl).isBetween(23_900L, 30_000L));
			long spread = ttls.stream().mapToLong(Long::longValue).max().getAsLong()
					- ttls.stream().mapToLong(Long::longValue).min().getAsLong();
			assertThat(spread).as("spread of 40 jittered TTLs").isGreaterThan(2_000L);
		});
	}

	@Test
	void valuesAreJsonThatAnyClientCanRead() {
		Catalog catalog = shared().getBean(Catalog.class);
		String id = UUID.randomUUID().toString();
		Product product = catalog.product(id);
		String json = rawGet("products::" + id);
		assertThat(json).startsWith("{")
			.contains("\"name\":\"Product " + id + "\"")
			.contains("\"priceCents\":1999")
			.doesNotContain("\u00ac\u00ed");
		assertThat(catalog.product(id)).isEqualTo(product);
		assertThat(CacheTestApp.loads(id)).isEqualTo(1);
	}

	@Test
	void sixteenConcurrentMissesOnTwoApplicationsLoadOnce() throws Exception {
		ConfigurableApplicationContext first = shared();
		CacheTestApp.runner(this.redis, PROPERTIES).run((second) -> {
			String id = UUID.randomUUID().toString();
			List<Catalog> catalogs = List.of(first.getBean(Catalog.class), second.getBean(Catalog.class));
			// both connected (through the Sentinels, too) before the race starts
			catalogs.forEach((catalog) -> catalog.product("warm-" + UUID.randomUUID()));
			// the loader holds the lock until a caller of the other application has
			// missed too, so that caller must wait for it however the threads are
			// scheduled
			double firstMisses = misses(first);
			double secondMisses = misses(second);
			double waitsBefore = waits(first) + waits(second);
			Runnable untilBothMissed = () -> {
				long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
				while ((misses(first) <= firstMisses || misses(second) <= secondMisses)
						&& System.nanoTime() < deadline) {
					LockSupport.parkNanos(1_000_000);
				}
			};
			catalogs.forEach((catalog) -> catalog.slowDown(Duration.ofMillis(300), untilBothMissed));
			ExecutorService pool = Executors.newFixedThreadPool(16);
			try {
				CountDownLatch start = new CountDownLatch(1);
				List<CompletableFuture<Product>> results = new ArrayList<>();
				for (int i = 0; i < 16; i++) {
					Catalog catalog = catalogs.get(i % 2);
					results.add(CompletableFuture.supplyAsync(() -> {
						await(start);
						return catalog.product(id);
					}, pool));
				}
				start.countDown();
				for (CompletableFuture<Product> result : results) {
					assertThat(result.get(10, TimeUnit.SECONDS).id()).isEqualTo(id);
				}
			}
			finally {
				pool.shutdownNow();
			}
			assertThat(CacheTestApp.loads(id)).isEqualTo(1);
			double waits = waits(first) + waits(second) - waitsBefore;
			assertThat(waits).as("callers that waited in another JVM-wide context").isPositive();
		});
	}

	@Test
	void springCacheMetricsCountHitsMissesAndPuts() {
		ConfigurableApplicationContext context = shared();
		Catalog catalog = context.getBean(Catalog.class);
		String id = UUID.randomUUID().toString();
		catalog.productUnsynced(id);
		catalog.productUnsynced(id);
		catalog.productUnsynced(id);
		MeterRegistry registry = context.getBean(MeterRegistry.class);
		assertThat(registry.get("cache.gets").tag("cache", "products").tag("result", "hit").functionCounter().count())
			.isGreaterThanOrEqualTo(2);
		assertThat(registry.get("cache.gets").tag("cache", "products").tag("result", "miss").functionCounter().count())
			.isGreaterThanOrEqualTo(1);
		assertThat(registry.get("cache.puts").tag("cache", "products").functionCounter().count())
			.isGreaterThanOrEqualTo(1);
	}

	@Test
	void clearingACacheScansInBatchesAndNeverUsesKeys() {
		ConfigurableApplicationContext context = shared();
		Catalog catalog = context.getBean(Catalog.class);
		String run = UUID.randomUUID().toString();
		for (int i = 0; i < 120; i++) {
			catalog.product(run + "-" + i);
		}
		CommandStats before = this.redis.commandStats();
		context.getBean(CacheManager.class).getCache("products").clear();
		CommandStats used = this.redis.commandStats().since(before);
		assertThat(used.calls("keys")).isZero();
		assertThat(used.calls("scan")).isPositive();
		assertThat(rawGet("products::" + run + "-7")).isNull();
	}

	@Test
	void hotKeysAreRefreshedBeforeTheyExpire() {
		ConfigurableApplicationContext context = shared();
		Catalog catalog = context.getBean(Catalog.class);
		catalog.slowDown(Duration.ofMillis(20), () -> {
		});
		String id = UUID.randomUUID().toString();
		String first = catalog.hot(id);
		long deadline = System.nanoTime() + Duration.ofMillis(1_900).toNanos();
		String latest = first;
		while (latest.equals(first) && System.nanoTime() < deadline) {
			latest = catalog.hot(id);
		}
		assertThat(latest).as("refreshed before the 2s TTL ran out").isNotEqualTo(first);
		assertThat(context.getBean(MeterRegistry.class)
			.get("redkit.cache.early-refreshes")
			.tag("cache", "hot")
			.counter()
			.count()).isPositive();
	}

	private double misses(ConfigurableApplicationContext context) {
		return context.getBean(MeterRegistry.class)
			.get("cache.gets")
			.tag("cache", "products")
			.tag("result", "miss")
			.functionCounter()
			.count();
	}

	private double waits(ConfigurableApplicationContext context) {
		return context.getBean(MeterRegistry.class)
			.find("redkit.cache.single-flight.waits")
			.timers()
			.stream()
			.mapToDouble((timer) -> timer.count())
			.sum();
	}

	private long pttl(String key) {
		return this.raw.getExpire(key, TimeUnit.MILLISECONDS);
	}

	private String rawGet(String key) {
		return this.raw.opsForValue().get(key);
	}

	private static void await(CountDownLatch latch) {
		try {
			latch.await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
