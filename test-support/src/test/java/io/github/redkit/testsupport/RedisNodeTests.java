package io.github.redkit.testsupport;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * A node's replica cut for a failover holds what its master acknowledged, however long
 * its full sync takes, and a replica that never will fails the cut, saying why.
 */
class RedisNodeTests {

	// keys of the snapshot, each loaded 100 ms late by the replica: a full sync of 5 s,
	// longer than the quiet spell the cut below allows a replica that is not syncing (the
	// harness' own, 15 s, took an 18 s sync to show it: 13 s of the test's wall time for
	// the same proof)
	private static final int KEYS = 50;

	// long enough for the replica to reconnect to its restarted master (it retries once
	// a second) and its full sync to be seen under way on a loaded machine
	private static final Duration QUIET = Duration.ofSeconds(3);

	@Test
	void aCutWaitsForAFullSyncLongerThanAQuietSpell() {
		try (RedisNode node = RedisNode.startWithReplica(false)) {
			try (RespClient master = node.client()) {
				for (int i = 0; i < KEYS; i++) {
					master.call("SET", "k" + i, "v".repeat(1000));
				}
			}
			node.snapshot();
			try (RespClient master = node.client()) {
				// the replica goes past the snapshot: after the restart on it, only a
				// full
				// sync brings it back into the master's history
				master.call("SET", "after-snapshot", "1");
				master.call("WAIT", "1", "5000");
			}
			try (RespClient replica = RespClient.connect(RedisServer.HOST, node.replicaPort(), Duration.ofSeconds(5))) {
				replica.call("CONFIG", "SET", "key-load-delay", "100000");
			}
			node.restartFromSnapshot();
			try (RespClient master = node.client()) {
				master.call("SET", "acknowledged", "1");
			}
			long started = System.nanoTime();
			node.cutReplica(QUIET);
			assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThan(QUIET);
			node.promoteReplica();
			try (RespClient promoted = node.client()) {
				assertThat(promoted.call("GET", "acknowledged")).isEqualTo("1");
				assertThat(promoted.call("DBSIZE")).isEqualTo((long) KEYS + 1);
			}
		}
	}

	@Test
	void aReplicaThatNeverHoldsFailsTheWaitNamingWhatItSaw() {
		try (RedisNode node = RedisNode.startWithReplica(false)) {
			ReplicationState acknowledged;
			try (RespClient master = node.client()) {
				master.call("SET", "acknowledged", "1");
				acknowledged = ReplicationState.of(master);
			}
			try (RespClient replica = RespClient.connect(RedisServer.HOST, node.replicaPort(), Duration.ofSeconds(5))) {
				// a master of its own now: never again in its former master's history
				replica.call("REPLICAOF", "NO", "ONE");
			}
			assertThatIllegalStateException()
				.isThrownBy(() -> node.awaitHolds(node.replicaPort(), acknowledged, Duration.ofMillis(300),
						Duration.ofSeconds(5)))
				.withMessageContaining("did not catch up with its master in")
				.withMessageContaining("no full sync was seen under way")
				.withMessageContaining("acknowledged ReplicationState[");
		}
	}

}
