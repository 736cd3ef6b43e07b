package io.github.redkit.core;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.autoconfigure.lock.LockAutoConfiguration;
import io.github.redkit.autoconfigure.queue.QueueAutoConfiguration;
import io.github.redkit.core.internal.RedkitThreads;
import io.github.redkit.lock.DistributedLocks;
import io.github.redkit.lock.LockHandle;
import io.github.redkit.queue.QueueListener;
import io.github.redkit.queue.QueueTemplate;
import io.github.redkit.testsupport.RedisServers;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingStream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * With {@code spring.threads.virtual.enabled=true} on Java 21+, Redkit's own threads are
 * virtual: queue consumers handle messages on virtual threads, the lock watchdog renews
 * on one, no Redkit platform thread is left, and no virtual thread is pinned to its
 * carrier while it waits on Redis (JFR's {@code jdk.VirtualThreadPinned}). Skipped on
 * Java 17, the baseline; {@code .ci/run} runs it again on the newest JDK it finds
 * (README, "Tests").
 */
class RedkitVirtualThreadsTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedkitAutoConfiguration.class,
				QueueAutoConfiguration.class, LockAutoConfiguration.class, AopAutoConfiguration.class))
		.withUserConfiguration(Listener.class)
		.withPropertyValues(RedisServers.standalone().springProperties())
		.withPropertyValues("redkit.key-prefix=redkit-vt-" + UUID.randomUUID(), "redkit.queue.poll-timeout=100ms",
				"redkit.lock.lease-time=300ms", "spring.threads.virtual.enabled=true");

	@Test
	void redkitsOwnThreadsAreVirtualAndNeverPinned() throws Exception {
		Assumptions.assumeTrue(Runtime.version().feature() >= 21,
				"virtual threads need Java 21+; this run is on Java " + Runtime.version().feature());
		List<RecordedEvent> pinned = new CopyOnWriteArrayList<>();
		try {
			this.runner.run((context) -> {
				assertThat(RedkitThreads.virtual()).isTrue();
				// a first round loads the classes (class loading may pin briefly: it is
				// not
				// waiting on Redis), the second is recorded
				exercise(context, 0);
				try (RecordingStream recording = new RecordingStream()) {
					recording.enable("jdk.VirtualThreadPinned").withThreshold(Duration.ZERO).withStackTrace();
					recording.onEvent("jdk.VirtualThreadPinned", pinned::add);
					recording.startAsync();
					exercise(context, 20);
					// stop() (Java 20+) delivers every recorded event before it returns
					RecordingStream.class.getMethod("stop").invoke(recording);
				}
				assertThat(Listener.handledOn.values()).as("handled on virtual threads").containsOnly(true);
				Set<String> platform = Thread.getAllStackTraces()
					.keySet()
					.stream()
					.map(Thread::getName)
					.filter((name) -> name.startsWith("redkit-queue-") || name.startsWith("redkit-lock-watchdog"))
					.collect(Collectors.toSet());
				assertThat(platform).as("Redkit platform threads").isEmpty();
			});
		}
		finally {
			RedkitThreads.useVirtualThreads(false);
		}
		List<String> redkitPins = pinned.stream()
			.filter((event) -> event.getStackTrace() != null && event.getStackTrace()
				.getFrames()
				.stream()
				.anyMatch((frame) -> frame.getMethod().getType().getName().startsWith("io.github.redkit")))
			.map(RecordedEvent::toString)
			.toList();
		assertThat(redkitPins).as("virtual threads pinned in Redkit code").isEmpty();
	}

	private static void exercise(AssertableApplicationContext context, int first) {
		QueueTemplate queues = context.getBean(QueueTemplate.class);
		for (int i = first; i < first + 20; i++) {
			queues.send("vt", Map.of("n", i));
		}
		await().atMost(Duration.ofSeconds(20)).until(() -> Listener.handledOn.size() >= first + 20);
		// the default lease (300 ms here) is renewed by the watchdog
		try (LockHandle lock = context.getBean(DistributedLocks.class)
			.tryLock("vt", UUID.randomUUID().toString(), Duration.ZERO, null)
			.orElseThrow()) {
			long until = System.nanoTime() + Duration.ofMillis(700).toNanos();
			await().atMost(Duration.ofSeconds(5)).until(() -> System.nanoTime() > until);
			assertThat(lock.isHeld()).as("renewed by the watchdog").isTrue();
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class Listener {

		static final Map<Integer, Boolean> handledOn = new ConcurrentHashMap<>();

		@Bean
		Listener vtListener() {
			return new Listener();
		}

		@QueueListener(queue = "vt", concurrency = "2")
		void on(Map<String, Integer> message) throws Exception {
			handledOn.put(message.get("n"),
					(Boolean) Thread.class.getMethod("isVirtual").invoke(Thread.currentThread()));
		}

	}

}
