package io.github.redkit.pubsub;

import java.time.Duration;
import java.util.UUID;

import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.pubsub.internal.RedisControlState;
import io.github.redkit.testsupport.Exercises;
import io.github.redkit.testsupport.RedisTopologies;
import io.github.redkit.testsupport.RedisTopology;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An acknowledgement TTL of 10^17 ms and more reaches Redis as exact digits, not as
 * {@code 1e+17}, which {@code PEXPIRE} refuses.
 */
@ParameterizedClass
@RedisTopologies(exercises = Exercises.SCRIPTS)
class ControlStateLongAckTests {

	@Parameter
	RedisTopology topology;

	@Test
	void anAcknowledgementLivesForCenturies() {
		RedisControlState controller = new RedisControlState(new RedisScriptRunner(this.topology.connectionFactory()),
				new RedisKeyspace("redkit"), "redkit:pubsub:control", Duration.ofMinutes(5),
				Duration.ofMillis(200_000_000_000_000_000L));
		String group = "workers-" + UUID.randomUUID();
		long version = controller.set(group, "run", "true");
		controller.acknowledge(group, "worker-1", version);
		assertThat(controller.acknowledgements(group)).containsEntry("worker-1", version);
	}

}
