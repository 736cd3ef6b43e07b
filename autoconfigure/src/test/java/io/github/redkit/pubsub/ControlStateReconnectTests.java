package io.github.redkit.pubsub;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;

import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.pubsub.PubSubTestApp.Recorder;
import io.github.redkit.pubsub.internal.ControlStateSubscription;
import io.github.redkit.pubsub.internal.RedisControlState;
import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import io.github.redkit.testsupport.RespClient;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A subscriber that loses its connection while the state changes converges once it is
 * back: on a dedicated server whose pub/sub clients are killed, or which is restarted.
 */
class ControlStateReconnectTests {

	@PrivateRedis
	private static RedisServer server;

	@PrivateRedis
	private static LettuceConnectionFactory controllerConnection;

	private static RedisControlState controller;

	@BeforeAll
	static void start() {
		controller = new RedisControlState(new RedisScriptRunner(controllerConnection), new RedisKeyspace("redkit"),
				"redkit:pubsub:control", Duration.ofMinutes(5), Duration.ofMinutes(1));
	}

	@Test
	void convergesAfterItsConnectionIsKilled() {
		String group = "workers-" + UUID.randomUUID();
		controller.set(group, Map.of("throttle", "10"));
		PubSubTestApp.runner(server, group).run((context) -> {
			Recorder recorder = context.getBean(Recorder.class);
			ControlStateSubscription subscription = context.getBean(ControlStateSubscription.class);
			await().atMost(Duration.ofSeconds(10)).until(subscription::isSubscribed);
			long version;
			try (RespClient raw = server.client(server.port())) {
				raw.call("CLIENT", "KILL", "TYPE", "pubsub");
				// announced while the subscriber is disconnected: the message is lost
				version = controller.set(group, Map.of("throttle", "1", "run", "false"));
			}
			await().atMost(Duration.ofSeconds(20))
				.untilAsserted(() -> assertThat(recorder.last().version()).isEqualTo(version));
			assertThat(recorder.last().getBoolean("run", true)).isFalse();
			assertThat(subscription.subscriptions()).isGreaterThanOrEqualTo(2);
			assertThat(context.getBean(MeterRegistry.class).get("redkit.pubsub.resubscribes").counter().count())
				.isGreaterThanOrEqualTo(1);
		});
	}

	@Test
	void convergesAfterRedisIsRestarted() {
		String group = "workers-" + UUID.randomUUID();
		controller.set(group, Map.of("throttle", "10"));
		PubSubTestApp.runner(server, group).run((context) -> {
			Recorder recorder = context.getBean(Recorder.class);
			ControlStateSubscription subscription = context.getBean(ControlStateSubscription.class);
			await().atMost(Duration.ofSeconds(10)).until(subscription::isSubscribed);
			server.stop();
			server.start();
			// the restarted server is empty: the controller sets the state again
			long version = controller.set(group, Map.of("throttle", "7", "run", "true"));
			await().atMost(Duration.ofSeconds(30))
				.untilAsserted(() -> assertThat(recorder.last().getLong("throttle", 0)).isEqualTo(7));
			assertThat(recorder.last().version()).isEqualTo(version);
			assertThat(subscription.isSubscribed()).isTrue();
		});
	}

}
