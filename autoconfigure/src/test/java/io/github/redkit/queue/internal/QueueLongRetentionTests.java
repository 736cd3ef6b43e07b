package io.github.redkit.queue.internal;

import java.time.Duration;
import java.util.UUID;

import io.github.redkit.queue.BackoffPolicy;
import io.github.redkit.queue.CollapsePolicy;
import io.github.redkit.queue.FailureOutcome;
import io.github.redkit.queue.QueueMessage;
import io.github.redkit.queue.QueueOrder;
import io.github.redkit.queue.QueueSettings;
import io.github.redkit.testsupport.Exercises;
import io.github.redkit.testsupport.RedisTopologies;
import io.github.redkit.testsupport.RedisTopology;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A dead-letter retention of 10^17 ms and more reaches Redis as exact digits, not as
 * {@code 1e+17}, which {@code PEXPIRE} refuses.
 */
@ParameterizedClass
@RedisTopologies(exercises = Exercises.SCRIPTS)
class QueueLongRetentionTests {

	@Parameter
	RedisTopology topology;

	private QueueTestSupport support;

	@BeforeEach
	void setUp() {
		this.support = new QueueTestSupport(this.topology);
	}

	@Test
	void aMessageIsDeadLetteredForCenturies() {
		String queue = "q-" + UUID.randomUUID();
		this.support.settings.put(queue,
				new QueueSettings(QueueOrder.FIFO, Duration.ofSeconds(30), 1,
						new BackoffPolicy(Duration.ofMillis(1), 1.0, Duration.ofMillis(1), 0), true,
						Duration.ofMillis(200_000_000_000_000_000L), CollapsePolicy.NONE));
		RedisQueueTemplate template = this.support.template;
		template.send(queue, "a");
		QueueMessage<String> message = template.receive(queue, String.class).orElseThrow();
		assertThat(template.fail(message, new IllegalStateException("boom"))).isEqualTo(FailureOutcome.DEAD_LETTERED);
		assertThat(template.deadLetters(queue, 10)).singleElement()
			.satisfies((letter) -> assertThat(letter.error()).isEqualTo("java.lang.IllegalStateException: boom"));
	}

}
