package io.github.redkit.idempotency;

import java.time.Duration;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.idempotency.internal.IdempotencySettings;
import io.github.redkit.idempotency.internal.RedisIdempotentSteps;
import io.github.redkit.testsupport.RedisServers;
import io.github.redkit.testsupport.RedisTopology;
import io.github.redkit.testsupport.TcpProxy;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Step calls applied once when the client sends them again: the connection is cut after
 * Redis applied a call and before its answer came back
 * ({@link TcpProxy#cutAfterNextWrite()}), so Lettuce reconnects, a second later here, and
 * sends the same call again (issue 43). A claim is recognised as the same one, a
 * completion is recorded once with the first result, and removing whichever claim holds a
 * step never removes a claim taken after it.
 */
class IdempotencyReplayTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(5);

	private static final Set<String> NOTHING = Set.of();

	private final TcpProxy link = TcpProxy.start(RedisServers.standalone().port());

	// a second between the cut and the reconnect: room for another instance's call
	private final ClientResources resources = ClientResources.builder()
		.reconnectDelay(Delay.constant(Duration.ofSeconds(1)))
		.build();

	private final LettuceConnectionFactory factory = this.link.connectionFactory(TIMEOUT, this.resources);

	private final RedisKeyspace keyspace = new RedisKeyspace("irp-" + UUID.randomUUID());

	private final RedisIdempotentSteps steps = steps(new RedisScriptRunner(this.factory));

	private final RedisIdempotentSteps direct = steps(
			new RedisScriptRunner(RedisTopology.STANDALONE.connectionFactory()));

	private final String operation = "order-" + UUID.randomUUID();

	@AfterEach
	void close() {
		this.factory.destroy();
		this.resources.shutdown();
		this.link.close();
	}

	@Test
	void aClaimAndItsCompletionAreEachAppliedOnce() {
		warm();
		this.link.cutAfterNextWrite();
		StepClaim claim = this.steps.claim(this.operation, "pay", NOTHING, null, null, null);
		assertThat(this.link.cutsAfterWrite()).isEqualTo(1);
		assertThat(claim.outcome()).as("this very claim, delivered again").isEqualTo(StepOutcome.CLAIMED);
		assertThat(this.direct.claim(this.operation, "pay", NOTHING, null)).isEqualTo(StepOutcome.IN_PROGRESS);
		this.link.cutAfterNextWrite();
		this.steps.complete(claim, "paid once");
		assertThat(this.link.cutsAfterWrite()).isEqualTo(2);
		StepClaim duplicate = this.direct.claim(this.operation, "pay", NOTHING, null, null, null);
		assertThat(duplicate.outcome()).isEqualTo(StepOutcome.DUPLICATE);
		assertThat(this.direct.result(this.operation, "pay", String.class)).isEqualTo("paid once");
		assertThat(this.direct.recordedSteps(this.operation)).containsExactly("pay");
	}

	@Test
	void abandoningWhicheverClaimNeverRemovesAClaimTakenAfterIt() {
		warm();
		StepClaim first = this.direct.claim(this.operation, "pay", NOTHING, null, null, null);
		assertThat(first.outcome()).isEqualTo(StepOutcome.CLAIMED);
		this.link.cutAfterNextWrite();
		CompletableFuture<Void> abandoned = this.steps.abandonAsync(this.operation, "pay");
		await().atMost(TIMEOUT).pollInterval(Duration.ofMillis(5)).until(() -> this.link.cutsAfterWrite() == 1);
		// another delivery claims the step between the first application and the re-send
		StepClaim second = this.direct.claim(this.operation, "pay", NOTHING, null, null, null);
		assertThat(second.outcome()).isEqualTo(StepOutcome.CLAIMED);
		abandoned.join();
		assertThat(this.direct.claim(this.operation, "pay", NOTHING, null)).as("the second claim still holds the step")
			.isEqualTo(StepOutcome.IN_PROGRESS);
		this.direct.complete(second, "paid by the second");
		assertThat(this.direct.result(this.operation, "pay", String.class)).isEqualTo("paid by the second");
	}

	// connected, and the scripts loaded, before the cut
	private void warm() {
		assertThat(this.steps.recordedSteps(this.operation)).isEmpty();
		this.steps.abandon(this.operation, "warm");
	}

	private RedisIdempotentSteps steps(RedisScriptRunner runner) {
		RedisIdempotentSteps steps = new RedisIdempotentSteps(runner, this.keyspace, JsonMapper.builder().build(),
				new IdempotencySettings(Duration.ofHours(48), Duration.ofSeconds(30), TIMEOUT), RedkitMetrics.NONE,
				RedkitObservations.NONE);
		steps.setCommandTimeout(TIMEOUT);
		return steps;
	}

}
