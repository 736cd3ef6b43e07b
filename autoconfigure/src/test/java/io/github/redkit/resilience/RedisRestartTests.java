package io.github.redkit.resilience;

import java.time.Duration;

import io.github.redkit.pubsub.ChannelPublisher;
import io.github.redkit.queue.QueueTemplate;
import io.github.redkit.ratelimit.RateLimiter;
import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Redis killed and started again, empty, under a running application: queue consumers and
 * channel listeners resume by themselves, and the outage shows in the metrics.
 */
class RedisRestartTests {

	@Test
	void consumersAndListenersResumeAfterRedisRestartsEmpty(@PrivateRedis RedisServer redis) {
		try (ConfigurableApplicationContext context = FaultsApplication.start(redis)) {
			QueueTemplate queues = context.getBean(QueueTemplate.class);
			ChannelPublisher publisher = context.getBean(ChannelPublisher.class);
			RateLimiter limiter = context.getBean(RateLimiter.class);
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			FaultsApplication.Received received = context.getBean(FaultsApplication.Received.class);
			queues.send(FaultsApplication.QUEUE, "before");
			await().atMost(Duration.ofSeconds(10)).until(() -> received.queued.contains("before"));
			publishUntilHeard(publisher, received, "before");

			redis.stop();
			limiter.tryAcquire("api", "client");
			assertThat(meters.get("redkit.ratelimit.decisions").tag("outcome", "failed-open").counter().count())
				.as("the outage counted")
				.isPositive();
			await().atMost(Duration.ofSeconds(10))
				.untilAsserted(() -> assertThat(meters.get("redkit.queue.depth").tag("state", "ready").gauge().value())
					.as("a queue gauge that cannot read Redis")
					.isNaN());
			redis.start();

			// the consumers were blocked on, or retrying, a connection that died
			await().atMost(Duration.ofSeconds(15))
				.ignoreExceptions()
				.untilAsserted(() -> queues.send(FaultsApplication.QUEUE, "after"));
			await().atMost(Duration.ofSeconds(15)).until(() -> received.queued.contains("after"));
			// Lettuce resubscribed the listener container's connection
			publishUntilHeard(publisher, received, "after");
			await().atMost(Duration.ofSeconds(10))
				.until(() -> meters.get("redkit.queue.depth").tag("state", "ready").gauge().value() == 0);
		}
	}

	private static void publishUntilHeard(ChannelPublisher publisher, FaultsApplication.Received received,
			String message) {
		await().atMost(Duration.ofSeconds(15)).ignoreExceptions().until(() -> {
			publisher.publish(FaultsApplication.CHANNEL, message);
			return received.published.contains("\"" + message + "\"");
		});
	}

}
