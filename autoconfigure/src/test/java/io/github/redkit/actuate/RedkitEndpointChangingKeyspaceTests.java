package io.github.redkit.actuate;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.Function;

import io.github.redkit.autoconfigure.lock.LockAutoConfiguration;
import io.github.redkit.testsupport.CommandStats;
import io.github.redkit.testsupport.Exercises;
import io.github.redkit.testsupport.RedisTopologies;
import io.github.redkit.testsupport.RedisTopology;
import io.github.redkit.testsupport.RedisServer;
import io.github.redkit.testsupport.RespClient;
import io.github.redkit.testsupport.TcpProxy;
import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.async.RedisKeyAsyncCommands;
import io.lettuce.core.api.async.RedisStringAsyncCommands;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.SoftAssertions.assertSoftly;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/**
 * Walks of the locks while another thread adds and removes other keys without pause in
 * the same keyspace (keys of another kind, or other locks), as in production: every lock
 * held for the whole walk is listed, none twice (the table holds its size: Redis' own
 * {@code SCAN} repeats nothing then), and a page costs a few {@code SCAN} calls
 * ({@code INFO commandstats}). On a Redis that answers each {@code SCAN} only after more
 * than half of {@code scan-timeout}, every page ends with an answer and the walk ends.
 */
@ParameterizedClass
@RedisTopologies(exercises = Exercises.NODES)
class RedkitEndpointChangingKeyspaceTests {

	@Parameter
	RedisTopology topology;

	// with their churn, a keyspace far from a power of two on every master, so that
	// Redis' table holds its size during the walk: about 1,170 keys in a table of 2,048
	// on one server, 390 in 512 on each of a cluster's masters (2,500 cost 250 pages of
	// churn a walk, without catching more: the broken pages listed a third of them twice)
	private static final int LOCKS = 1_100;

	private static final int PAGE = 10;

	private static final int CHURNED = 150;

	// each way: a SCAN through the link takes more than half a page's time bound, and
	// its answer still comes within it on a loaded machine (120 ms each way against a
	// bound of 400 left 160 ms, which load 10-22 took twice: a page without its first
	// answer, the same cursor)
	private static final Duration DELAY = Duration.ofMillis(260);

	private static final Duration TIME_BOUND = Duration.ofMillis(1000);

	// a change every millisecond beside the late Redis: hundreds between two of its
	// SCAN answers, which are 520 ms apart; without a pause the churn kept a core busy
	// for the whole walk (docs/testing.md)
	private static final Duration PACE = Duration.ofMillis(1);

	private final String prefix = "redkit-test-" + UUID.randomUUID();

	private ApplicationContextRunner runner() {
		return EndpointApplications.runner(this.prefix, this.topology, LockAutoConfiguration.class)
			// only what is listed and the calls are judged here (the time bound in the
			// last test); batches of at most a hundred keys, so that a master's few
			// hundred are several batches, as a production keyspace is with 1,000
			.withPropertyValues("redkit.endpoint.scan-timeout=10s", "redkit.endpoint.scan-count=100")
			.withPropertyValues(EndpointApplications.ownKeyspace(this.topology));
	}

	@Test
	void aWalkWhileKeysOfAnotherKindChangeListsEveryLockOnceInAFewScansAPage() {
		walkWhileChurning((i) -> this.prefix + ":queue:{churn-" + i + "}");
	}

	@Test
	void aWalkWhileOtherLocksChangeListsEveryLockOnceInAFewScansAPage() {
		walkWhileChurning((i) -> this.prefix + ":lock:{churn-" + i + "}");
	}

	private void walkWhileChurning(Function<Integer, String> churnedKey) {
		runner().run((context) -> {
			RedisConnectionFactory connectionFactory = context.getBean(RedisConnectionFactory.class);
			StringRedisTemplate redis = context.getBean(StringRedisTemplate.class);
			try {
				locks(connectionFactory, false);
				RedkitEndpoint endpoint = context.getBean(RedkitEndpoint.class);
				endpoint.section("locks", null, 1); // loads the script
				List<String> found = new ArrayList<>();
				int pages = 0;
				CommandStats before;
				try (Churn churn = new Churn(redis, churnedKey)) {
					churn.awaitRunning();
					before = this.topology.server().commandStats();
					String cursor = null;
					do {
						Map<?, ?> page = (Map<?, ?>) endpoint.section("locks", cursor, PAGE);
						List<?> locks = (List<?>) page.get("locks");
						assertThat(locks).as("page %d", pages).hasSizeLessThanOrEqualTo(PAGE);
						locks.forEach((lock) -> found.add((String) ((Map<?, ?>) lock).get("key")));
						cursor = (String) page.get("cursor");
						pages++;
					}
					while (!"0".equals(cursor) && pages < 2 * LOCKS);
					assertThat(churn.changes()).as("keys changed during the walk").isGreaterThan(pages);
				}
				long scans = this.topology.server().commandStats().since(before).calls("scan");
				List<String> held = found.stream().filter((key) -> key.startsWith("job-")).toList();
				Set<String> expected = new HashSet<>();
				for (int i = 0; i < LOCKS; i++) {
					expected.add("job-" + i);
				}
				int walked = pages;
				assertSoftly((softly) -> {
					softly.assertThat(new HashSet<>(held)).as("every lock held for the whole walk").isEqualTo(expected);
					softly.assertThat(held.size() - LOCKS).as("locks listed twice").isZero();
					// a SCAN a batch taken, and at most one more a page (the batch it
					// ends
					// before, or one scanned again with a smaller COUNT)
					softly.assertThat(scans)
						.as("SCAN calls for %d pages", walked)
						.isLessThanOrEqualTo(2L * walked + this.topology.server().ports().size());
				});
			}
			finally {
				locks(connectionFactory, true);
				for (int i = 0; i < CHURNED; i++) {
					redis.delete(churnedKey.apply(i));
				}
			}
		});
	}

	/**
	 * The page's Redis answers each {@code SCAN} only after more than half the page's
	 * time bound (a link that delays both ways; on one server), while other keys change
	 * without pause (written beside the link): a page whose first {@code SCAN} took most
	 * of its time bound has no time for a second one, yet it moves the walk on, and the
	 * walk ends having listed every lock.
	 */
	@Test
	void aWalkOnARedisThatAnswersLateEnds() {
		assumeFalse(this.topology.server().isCluster(), "a delaying link to one server");
		RedisServer server = this.topology.server();
		try (TcpProxy link = TcpProxy.start(server.port()); RespClient writer = server.client(server.port())) {
			writer.call("SELECT", "9");
			runner().withPropertyValues("spring.data.redis.port=" + link.port()).run((context) -> {
				RedisConnectionFactory connectionFactory = context.getBean(RedisConnectionFactory.class);
				EndpointSettings settings = new EndpointSettings(false, TIME_BOUND, 50, 100);
				String match = KeyScan.escapeGlob(this.prefix + ":lock:") + "{*}";
				int locks = 150;
				Function<Integer, String> churned = (i) -> this.prefix + ":queue:{churn-" + i + "}";
				try {
					locks(connectionFactory, false, locks);
					Set<String> found = new HashSet<>();
					int pages = 0;
					boolean complete = false;
					try (Churn churn = new Churn((key) -> writer.call("SET", key, "1", "PX", "120000"),
							(key) -> writer.call("DEL", key), churned, PACE)) {
						churn.awaitRunning();
						link.delay(DELAY);
						String cursor = null;
						for (; !complete && pages < 100; pages++) {
							KeyScan.Page page;
							try (RedisConnection connection = connectionFactory.getConnection()) {
								page = KeyScan.scan(connection, cursor, match, settings, PAGE, (key) -> true);
							}
							assertThat(page.keys()).hasSizeLessThanOrEqualTo(PAGE);
							// its first SCAN was answered: it moved the walk on
							assertThat(page.cursor()).as("page %d's cursor", pages).isNotEqualTo(cursor);
							found.addAll(page.keys());
							cursor = page.cursor();
							complete = page.complete();
						}
						link.delay(Duration.ZERO);
						assertThat(churn.changes()).as("keys changed during the walk").isGreaterThan(pages);
					}
					assertThat(complete).as("the walk ended within %d pages", pages).isTrue();
					assertThat(found).as("every lock").hasSize(locks);
				}
				finally {
					link.delay(Duration.ZERO);
					locks(connectionFactory, true, locks);
					for (int i = 0; i < CHURNED; i++) {
						writer.call("DEL", churned.apply(i));
					}
				}
			});
		}
	}

	/**
	 * Pages of one entry, so that every hash bucket holding two locks or more is taken in
	 * part, while keys of another kind and other locks are added and removed without
	 * pause (in a database of its own, whose table keeps its size): a key added to an
	 * empty bucket a {@code COUNT 1} batch passed ends that batch elsewhere, and the next
	 * page takes it again whole. Every lock is listed, and only the locks pages took of a
	 * bucket they took in part are listed again.
	 */
	@Test
	void aWalkOfOneEntryAPageWhileKeysChangeListsAgainOnlyWhatWasTakenOfABucketInPart() {
		assumeFalse(this.topology.server().isCluster(), "a database of its own, on one server");
		int locks = 600;
		runner().withPropertyValues("spring.data.redis.database=12").run((context) -> {
			RedisConnectionFactory connectionFactory = context.getBean(RedisConnectionFactory.class);
			StringRedisTemplate redis = context.getBean(StringRedisTemplate.class);
			EndpointSettings settings = new EndpointSettings(false, Duration.ofSeconds(10), 100, 100);
			String match = KeyScan.escapeGlob(this.prefix + ":lock:") + "{*}";
			Function<Integer, String> churned = (i) -> this.prefix + ((i % 2 == 0) ? ":queue:" : ":lock:") + "{churn-"
					+ i + "}";
			try {
				locks(connectionFactory, false, locks);
				Map<String, Integer> listed = new HashMap<>();
				Set<String> takenInPart = new HashSet<>();
				int pages = 0;
				boolean complete = false;
				try (Churn churn = new Churn(redis, churned)) {
					churn.awaitRunning();
					String cursor = null;
					for (; !complete && pages < 20 * locks; pages++) {
						KeyScan.Page page;
						try (RedisConnection connection = connectionFactory.getConnection()) {
							page = KeyScan.scan(connection, cursor, match, settings, 1, (key) -> true);
						}
						assertThat(page.keys()).hasSizeLessThanOrEqualTo(1);
						page.keys().forEach((key) -> listed.merge(key, 1, Integer::sum));
						// a cursor that remembers a last key: the page took a bucket in
						// part
						if (page.cursor().matches("\\d+\\.[^.~]+\\.\\d+(~\\d+)?")) {
							takenInPart.addAll(page.keys());
						}
						cursor = page.cursor();
						complete = page.complete();
					}
					// hundreds of changes across the walk; one a page on average was too
					// close on a loaded machine (642 changes over 643 pages in a .ci/run)
					assertThat(churn.changes()).as("keys changed during the walk").isGreaterThan(pages / 2);
				}
				int walked = pages;
				boolean ended = complete;
				Set<String> expected = new HashSet<>();
				for (int i = 0; i < locks; i++) {
					expected.add(this.prefix + ":lock:{job-" + i + "}");
				}
				Set<String> again = new TreeSet<>();
				listed.forEach((key, times) -> {
					if (times > 1) {
						again.add(key);
					}
				});
				System.out.printf("%d pages, %d locks taken of a bucket in part, %d listed again%n", walked,
						takenInPart.size(), again.size());
				assertSoftly((softly) -> {
					softly.assertThat(ended).as("the walk ended within %d pages", walked).isTrue();
					softly.assertThat(listed.keySet()).as("every lock held for the whole walk").containsAll(expected);
					softly.assertThat(takenInPart).as("locks taken of a bucket in part").hasSizeGreaterThan(10);
					softly.assertThat(again).as("locks listed again").isSubsetOf(takenInPart);
				});
			}
			finally {
				locks(connectionFactory, true, locks);
				for (int i = 0; i < CHURNED; i++) {
					redis.delete(churned.apply(i));
				}
			}
		});
	}

	private void locks(RedisConnectionFactory connectionFactory, boolean delete) {
		locks(connectionFactory, delete, LOCKS);
	}

	// lock keys of the previous layout (the owner token, the lease as TTL), sent without
	// waiting for each answer; then a lookup of every key, which ends the rehash their
	// writes began (Redis rehashes a bucket per lookup), so that the walk starts on a
	// table at rest
	@SuppressWarnings("unchecked")
	private void locks(RedisConnectionFactory connectionFactory, boolean delete, int count) {
		try (RedisConnection connection = connectionFactory.getConnection()) {
			Object commands = connection.getNativeConnection();
			RedisKeyAsyncCommands<byte[], byte[]> keys = (RedisKeyAsyncCommands<byte[], byte[]>) commands;
			List<RedisFuture<?>> sent = new ArrayList<>(2 * count);
			for (int i = 0; i < count; i++) {
				byte[] key = (this.prefix + ":lock:{job-" + i + "}").getBytes(StandardCharsets.UTF_8);
				if (delete) {
					sent.add(keys.del(key));
				}
				else {
					sent.add(((RedisStringAsyncCommands<byte[], byte[]>) commands).set(key,
							("instance-1:" + i).getBytes(StandardCharsets.UTF_8),
							SetArgs.Builder.px(Duration.ofMinutes(2).toMillis())));
					sent.add(keys.exists(key));
				}
			}
			assertThat(LettuceFutures.awaitAll(Duration.ofSeconds(30), sent.toArray(RedisFuture[]::new))).isTrue();
		}
	}

	/**
	 * Adds a key and removes the one added {@code CHURNED / 2} steps before, without
	 * pause or at a pace, so that the keyspace changes all the time and keeps its size.
	 */
	private static final class Churn implements AutoCloseable {

		private final AtomicBoolean stop = new AtomicBoolean();

		private final AtomicReference<Throwable> failure = new AtomicReference<>();

		private volatile long changes;

		private final Thread thread;

		Churn(StringRedisTemplate redis, Function<Integer, String> key) {
			this((added) -> redis.opsForValue().set(added, "instance-2", Duration.ofMinutes(2)), redis::delete, key,
					Duration.ZERO);
		}

		Churn(Consumer<String> add, Consumer<String> remove, Function<Integer, String> key, Duration pace) {
			this.thread = new Thread(() -> {
				try {
					for (int i = 0; !this.stop.get(); i = (i + 1) % CHURNED) {
						add.accept(key.apply(i));
						remove.accept(key.apply((i + CHURNED / 2) % CHURNED));
						this.changes += 2;
						if (!pace.isZero()) {
							LockSupport.parkNanos(pace.toNanos());
						}
					}
				}
				catch (Throwable ex) {
					this.failure.set(ex);
				}
			}, "churn");
			this.thread.start();
		}

		void awaitRunning() {
			long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
			while (this.changes < CHURNED && System.nanoTime() < deadline && this.failure.get() == null) {
				Thread.onSpinWait();
			}
			assertThat(this.failure.get()).isNull();
		}

		long changes() {
			return this.changes;
		}

		@Override
		public void close() throws InterruptedException {
			this.stop.set(true);
			this.thread.join();
			assertThat(this.failure.get()).as("the churn's failure").isNull();
		}

	}

}
