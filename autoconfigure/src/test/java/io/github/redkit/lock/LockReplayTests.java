package io.github.redkit.lock;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.lock.internal.RedisDistributedLocks;
import io.github.redkit.testsupport.Exercises;
import io.github.redkit.testsupport.RedisTopologies;
import io.github.redkit.testsupport.RedisTopology;
import io.github.redkit.testsupport.TcpProxy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Lock calls applied once when the client sends them again: the connection is cut after
 * Redis applied a call and before its answer came back
 * ({@link TcpProxy#cutAfterNextWrite()}), so Lettuce reconnects and sends the same call
 * again (issue 43). An acquisition is recognised as the same one (one fencing token
 * handed out), an extend and a release compare on the holder's token. On every server
 * family: a release is the native {@code SET IFEQ} where the server has it (Valkey), a
 * script elsewhere.
 */
@ParameterizedClass
@RedisTopologies(exercises = Exercises.FAMILIES)
class LockReplayTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	private final RedisKeyspace keyspace = new RedisKeyspace("lrp-" + UUID.randomUUID());

	private final RedisTopology topology;

	private final TcpProxy link;

	private final LettuceConnectionFactory factory;

	private final RedisDistributedLocks locks;

	private final RedisDistributedLocks direct;

	LockReplayTests(RedisTopology topology) {
		this.topology = topology;
		this.link = TcpProxy.start(topology.server().port());
		this.factory = this.link.connectionFactory(TIMEOUT);
		this.locks = locks(connected(new RedisScriptRunner(this.factory)));
		this.direct = locks(new RedisScriptRunner(topology.connectionFactory()));
	}

	@AfterEach
	void close() {
		this.locks.destroy();
		this.direct.destroy();
		this.factory.destroy();
		this.link.close();
	}

	@Test
	void anAcquisitionAnExtendAndAReleaseAreEachAppliedOnce() {
		// connected, and the scripts loaded, before the cut
		this.locks.tryLock("warm", Duration.ZERO, TIMEOUT).orElseThrow().close();
		LockHandle first = this.direct.tryLock("order", Duration.ZERO, TIMEOUT).orElseThrow();
		long before = first.fencingToken();
		first.close();
		this.link.cutAfterNextWrite();
		LockHandle held = this.locks.tryLock("order", Duration.ZERO, Duration.ofSeconds(30)).orElseThrow();
		assertThat(this.link.cutsAfterWrite()).isEqualTo(1);
		assertThat(held.fencingToken()).isGreaterThan(before);
		// the copy sent again was recognised as this very acquisition: the record holds
		// the token the caller was handed, not a second one
		assertThat(recordedToken("order")).as("one token handed out").isEqualTo(held.fencingToken());
		assertThat(held.isHeld()).isTrue();
		this.link.cutAfterNextWrite();
		assertThat(held.extend(Duration.ofSeconds(60))).isTrue();
		assertThat(this.link.cutsAfterWrite()).isEqualTo(2);
		assertThat(this.direct.tryLock("order", Duration.ZERO, TIMEOUT)).as("still held").isEmpty();
		this.link.cutAfterNextWrite();
		held.close();
		assertThat(this.link.cutsAfterWrite()).isEqualTo(3);
		LockHandle next = this.direct.tryLock("order", Duration.ZERO, TIMEOUT).orElseThrow();
		assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
		next.close();
	}

	// the record's fencing token: struct '<BddBs' (layout, token, lease end, waiters,
	// holder)
	private long recordedToken(String key) {
		try (RedisConnection connection = this.topology.connectionFactory().getConnection()) {
			byte[] record = connection.stringCommands()
				.get(this.locks.redisKeys(key).get(0).getBytes(StandardCharsets.UTF_8));
			assertThat(record).isNotNull();
			return (long) ByteBuffer.wrap(record, 1, 8).order(ByteOrder.LITTLE_ENDIAN).getDouble();
		}
	}

	// as the auto-configuration does: probes the server for native commands
	private static RedisScriptRunner connected(RedisScriptRunner runner) {
		runner.connectInBackground().join();
		return runner;
	}

	private RedisDistributedLocks locks(RedisScriptRunner runner) {
		return new RedisDistributedLocks(runner, this.keyspace,
				new LockSettings(Duration.ofSeconds(30), TIMEOUT, Duration.ofSeconds(1)), RedkitMetrics.NONE,
				RedkitObservations.NONE, List.of());
	}

}
