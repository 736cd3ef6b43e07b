package io.github.redkit.autoconfigure;

import java.time.Duration;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

import io.github.redkit.autoconfigure.doctor.DoctorAutoConfiguration;
import io.github.redkit.autoconfigure.queue.QueueAutoConfiguration;
import io.github.redkit.testsupport.RedisServers;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The background reads of the gauge families as an application has them.
 */
class GaugeReadsTests {

	private static final Set<String> GAUGE_THREADS = Set.of("redkit-queue-gauges", "redkit-doctor-gauges");

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedkitAutoConfiguration.class,
				QueueAutoConfiguration.class, DoctorAutoConfiguration.class))
		.withBean(SimpleMeterRegistry.class)
		.withPropertyValues(RedisServers.standalone().springProperties())
		.withPropertyValues("redkit.key-prefix=redkit-test-" + UUID.randomUUID(),
				"redkit.queue.queues.emails.max-attempts=2", "redkit.metrics.gauge-refresh=5s");

	@Test
	void closingTheContextEndsTheThreadsThatReadTheGauges() {
		// other contexts of this JVM may read gauges too: only this one's threads count
		Set<Thread> before = gaugeThreads();
		this.runner.run((context) -> {
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
				assertThat(meters.get("redkit.queue.depth").tags("queue", "emails", "state", "ready").gauge().value())
					.isZero();
				assertThat(meters.get("redkit.doctor.findings").tags("status", "risk").gauge().value()).isNotNaN();
			});
			Set<Thread> reading = gaugeThreads();
			reading.removeAll(before);
			assertThat(reading).extracting(Thread::getName).containsExactlyInAnyOrderElementsOf(GAUGE_THREADS);
			context.close();
			// idle, they would live on for half a minute
			await().atMost(Duration.ofSeconds(5))
				.untilAsserted(
						() -> assertThat(reading).as("gauge threads alive after the close").noneMatch(Thread::isAlive));
		});
	}

	private static Set<Thread> gaugeThreads() {
		return Thread.getAllStackTraces()
			.keySet()
			.stream()
			.filter((thread) -> GAUGE_THREADS.contains(thread.getName()))
			.collect(Collectors.toSet());
	}

}
