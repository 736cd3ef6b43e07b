package io.github.redkit.pubsub;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;

import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.pubsub.PubSubTestApp.Recorder;
import io.github.redkit.pubsub.internal.ControlStateHealthIndicator;
import io.github.redkit.pubsub.internal.ControlStateSubscription;
import io.github.redkit.pubsub.internal.RedisControlState;
import io.github.redkit.testsupport.CommandLog;
import io.github.redkit.testsupport.Exercises;
import io.github.redkit.testsupport.RedisTopologies;
import io.github.redkit.testsupport.RedisTopology;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;

import org.springframework.boot.health.contributor.Status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

@ParameterizedClass
@RedisTopologies(exercises = Exercises.BOTH)
class ControlStateTests {

	@Parameter
	RedisTopology topology;

	private RedisControlState controller;

	private RedisScriptRunner runner;

	private final String group = "workers-" + UUID.randomUUID();

	@BeforeEach
	void connect() {
		this.runner = new RedisScriptRunner(this.topology.connectionFactory());
		this.controller = new RedisControlState(this.runner, new RedisKeyspace("redkit"), "redkit:pubsub:control",
				Duration.ofMinutes(5), Duration.ofMillis(400));
	}

	@Test
	void setBumpsTheVersionAndReadReturnsEveryValueAtomically() {
		assertThat(this.controller.read(this.group).version()).isZero();
		long first = this.controller.set(this.group, Map.of("throttle", "10", "run", "true"));
		long second = this.controller.set(this.group, "run", "false");
		ControlSnapshot snapshot = this.controller.read(this.group);
		assertThat(second).isGreaterThan(first);
		assertThat(snapshot.version()).isEqualTo(second);
		assertThat(snapshot.getLong("throttle", 0)).isEqualTo(10);
		assertThat(snapshot.getBoolean("run", true)).isFalse();
		this.controller.set(this.group, "throttle", "");
		assertThat(this.controller.read(this.group).values()).containsOnlyKeys("run");
		String valuesKey = "redkit:pubsub:{control:" + this.group + "}:values";
		assertThat(this.runner.template().getExpire(valuesKey)).isPositive();
	}

	@Test
	void setAndReadAreOneRoundTripEach() {
		this.controller.set(this.group, "throttle", "1");
		CommandLog set = CommandLog.record(this.topology.server(),
				() -> this.controller.set(this.group, Map.of("throttle", "2", "run", "true")));
		assertThat(set.clientCommands()).filteredOn((command) -> command.contains(this.group))
			.singleElement()
			.matches((command) -> command.startsWith("\"evalsha\""));
		// the script wrote the values and the version, and announced the change
		assertThat(set.scriptCommands()).anyMatch((command) -> command.startsWith("\"publish\""));
		// the first call on a node loads the script (EVALSHA, NOSCRIPT, EVAL)
		this.controller.read(this.group);
		CommandLog read = CommandLog.record(this.topology.server(), () -> this.controller.read(this.group));
		assertThat(read.roundTrips((command) -> command.contains(this.group))).isOne();
	}

	@Test
	void acknowledgementsShowWhoIsBehindAndExpire() {
		long version = this.controller.set(this.group, "throttle", "5");
		this.controller.acknowledge(this.group, "a", version);
		this.controller.acknowledge(this.group, "b", version - 1);
		assertThat(this.controller.acknowledgements(this.group))
			.containsExactlyInAnyOrderEntriesOf(Map.of("a", version, "b", version - 1));
		await().atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> assertThat(this.controller.acknowledgements(this.group)).isEmpty());
	}

	@Test
	void listenersGetTheStateAtStartUpAndEveryChangeAndAcknowledgeIt() {
		this.controller.set(this.group, Map.of("throttle", "10", "run", "true"));
		PubSubTestApp.runner(this.topology.server(), this.group).run((context) -> {
			Recorder recorder = context.getBean(Recorder.class);
			await().atMost(Duration.ofSeconds(10))
				.untilAsserted(() -> assertThat(recorder.last()).isNotNull()
					.satisfies((s) -> assertThat(s.getLong("throttle", 0)).isEqualTo(10)));
			long version = this.controller.set(this.group, "run", "false");
			await().atMost(Duration.ofSeconds(10))
				.untilAsserted(() -> assertThat(recorder.last().version()).isEqualTo(version));
			assertThat(recorder.last().getBoolean("run", true)).isFalse();
			RedisControlState state = context.getBean(RedisControlState.class);
			await().atMost(Duration.ofSeconds(5))
				.untilAsserted(() -> assertThat(state.acknowledgements(this.group))
					.containsEntry("worker-" + this.group, version));
			ControlStateHealthIndicator health = context.getBean(ControlStateHealthIndicator.class);
			assertThat(health.health(true).getStatus()).isEqualTo(Status.UP);
		});
	}

	@Test
	void aBadPayloadIsCountedAndTheListenerKeepsRunning() {
		PubSubTestApp.runner(this.topology.server(), this.group).run((context) -> {
			Recorder recorder = context.getBean(Recorder.class);
			ControlStateSubscription subscription = context.getBean(ControlStateSubscription.class);
			await().atMost(Duration.ofSeconds(10)).until(subscription::isSubscribed);
			this.runner.template().convertAndSend("redkit:pubsub:control", "not json {");
			this.runner.template().convertAndSend("redkit:pubsub:control", "{\"group\": 42}");
			await().atMost(Duration.ofSeconds(10)).until(() -> subscription.badPayloads() >= 2);
			long version = this.controller.set(this.group, "throttle", "3");
			await().atMost(Duration.ofSeconds(10))
				.untilAsserted(() -> assertThat(recorder.last().version()).isEqualTo(version));
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThat(registry.get("redkit.pubsub.bad-payloads").counter().count()).isGreaterThanOrEqualTo(2);
			assertThat(registry.get("redkit.pubsub.messages").counter().count()).isGreaterThanOrEqualTo(3);
			assertThat(registry.get("redkit.pubsub.subscribed").gauge().value()).isEqualTo(1);
		});
	}

}
