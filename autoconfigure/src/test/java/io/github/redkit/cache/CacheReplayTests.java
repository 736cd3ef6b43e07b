package io.github.redkit.cache;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;

import io.github.redkit.cache.internal.SingleFlight;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.testsupport.RedisServers;
import io.github.redkit.testsupport.RedisTopology;
import io.github.redkit.testsupport.TcpProxy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The single-flight lock when the client sends its call again: the connection is cut
 * after Redis applied it and before its answer came back
 * ({@link TcpProxy#cutAfterNextWrite()}), so Lettuce reconnects and sends the same call
 * again (issue 43). The caller holds the lock and must be told so, not wait out its own
 * lease as if someone else held it.
 */
class CacheReplayTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(5);

	private final TcpProxy link = TcpProxy.start(RedisServers.standalone().port());

	private final LettuceConnectionFactory factory = this.link.connectionFactory(TIMEOUT);

	private final RedisKeyspace keyspace = new RedisKeyspace("crp-" + UUID.randomUUID());

	private final SingleFlight flight = new SingleFlight(new RedisScriptRunner(this.factory), this.keyspace);

	private final SingleFlight direct = new SingleFlight(
			new RedisScriptRunner(RedisTopology.STANDALONE.connectionFactory()), this.keyspace);

	@AfterEach
	void close() {
		this.factory.destroy();
		this.link.close();
	}

	@Test
	void aLockTheCallerTookIsItsOwnWhenTheCallIsSentAgain() {
		String lock = this.flight.lockKey("products::1".getBytes(StandardCharsets.UTF_8));
		// connected, and the scripts loaded, before the cut
		assertThat(this.flight.tryLock(lock, "warm", TIMEOUT)).isTrue();
		this.flight.unlock(lock, "warm", TIMEOUT);
		this.link.cutAfterNextWrite();
		assertThat(this.flight.tryLock(lock, "mine", Duration.ofSeconds(30))).isTrue();
		assertThat(this.link.cutsAfterWrite()).isEqualTo(1);
		assertThat(this.direct.tryLock(lock, "someone else", TIMEOUT)).isFalse();
		this.direct.unlock(lock, "mine", TIMEOUT);
		assertThat(this.direct.tryLock(lock, "someone else", TIMEOUT)).isTrue();
	}

}
