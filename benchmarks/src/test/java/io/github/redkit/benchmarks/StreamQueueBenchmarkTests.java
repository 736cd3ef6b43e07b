package io.github.redkit.benchmarks;

import java.util.List;
import java.util.function.Function;

import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import io.github.redkit.testsupport.RespClient;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The stream queue suites still run: every contender takes and acknowledges a few
 * messages (a full measurement would take minutes), after which none of the raw or
 * Redisson takes is left pending, and the {@code XACKDEL} rows refuse a server without
 * it, naming the command.
 */
class StreamQueueBenchmarkTests {

	@PrivateRedis
	private static RedisServer redis;

	@Test
	void everyContenderOfBothSuitesTakesAndAcknowledges() {
		for (Suite suite : List.of(StreamQueueSuite.takeAck(), StreamQueueSuite.batches())) {
			for (Function<RedisServer, Contender> factory : suite.contenders()) {
				redis.flushAll();
				try (Contender contender = factory.apply(redis)) {
					for (int i = 0; i < 3; i++) {
						contender.operate(i % 2, i);
					}
					if (!contender.name().startsWith("Redkit")) {
						assertThat(pending()).as(contender.name()).isZero();
					}
				}
			}
		}
	}

	@Test
	void theRawTakeWithXackdelRefusesAServerWithoutIt() {
		String version = redis.version();
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new StreamQueueSuite.RawStreamTake(redis, 1, StreamQueueSuite.Removal.XACKDEL))
			.withMessageContaining("XACKDEL")
			.withMessageContaining(version)
			.withMessageContaining("--server");
	}

	private static long pending() {
		try (RespClient client = redis.client(redis.port())) {
			List<?> summary = (List<?>) client.call("XPENDING", QueueSuite.QUEUE, StreamQueueSuite.GROUP);
			return (summary != null) ? ((Number) summary.get(0)).longValue() : -1;
		}
	}

}
