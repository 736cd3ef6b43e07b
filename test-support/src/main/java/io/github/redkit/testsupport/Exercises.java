package io.github.redkit.testsupport;

import java.util.EnumSet;
import java.util.Set;

/**
 * What a {@link RedisTopologies} suite exercises, which picks the topologies it runs on:
 * a suite runs only where it can fail.
 */
public enum Exercises {

	/**
	 * The scripts and the commands Redkit sends: what differs between server families and
	 * on a cluster's slots. Runs on every server family (Redis 7, 6.2, 8, Valkey 8, 9)
	 * and on a cluster; not on Sentinel or the pool, which reach the same Redis 7 binary
	 * as standalone.
	 */
	SCRIPTS(EnumSet.of(RedisTopology.STANDALONE, RedisTopology.CLUSTER, RedisTopology.OLDEST, RedisTopology.REDIS_8,
			RedisTopology.VALKEY_8, RedisTopology.VALKEY_9)),

	/**
	 * The scripts' answers on one server of every family, through one connection the test
	 * cuts or delays (a {@link TcpProxy}): what a script answers when the client sends it
	 * again, which a server family can change. Runs on standalone and the other server
	 * families (Redis 6.2, 8, Valkey 8, 9); not on a cluster, whose masters one proxied
	 * connection cannot reach (a cluster's re-sent scripts are tested through a
	 * {@link ProxiedCluster} of a class's own), nor on Sentinel or the pool, which reach
	 * the same Redis 7 binary as standalone.
	 */
	FAMILIES(EnumSet.of(RedisTopology.STANDALONE, RedisTopology.OLDEST, RedisTopology.REDIS_8, RedisTopology.VALKEY_8,
			RedisTopology.VALKEY_9)),

	/**
	 * The connection: the thread hand-off, the pool, pub/sub, blocking commands, a master
	 * found through Sentinel, reconnects. Runs on standalone, the pool, Sentinel and a
	 * cluster; not on the other server families, whose differences the script suites
	 * cover.
	 */
	CONNECTION(
			EnumSet.of(RedisTopology.STANDALONE, RedisTopology.POOLED, RedisTopology.CLUSTER, RedisTopology.SENTINEL)),

	/**
	 * The nodes: how Redkit addresses a deployment's nodes (a listing's cursor naming its
	 * node, a walk over a cluster's masters) on top of commands the script suites cover,
	 * where only one server and a cluster differ. Runs on standalone and a cluster; not
	 * on the other server families, nor the pool or Sentinel, which reach one server as
	 * standalone does.
	 */
	NODES(EnumSet.of(RedisTopology.STANDALONE, RedisTopology.CLUSTER)),

	/**
	 * Both: every topology.
	 */
	BOTH(EnumSet.allOf(RedisTopology.class));

	private final Set<RedisTopology> topologies;

	Exercises(Set<RedisTopology> topologies) {
		this.topologies = topologies;
	}

	/**
	 * Whether a suite of this kind can fail on the given topology.
	 * @param topology a topology
	 * @return {@code true} to run the suite there
	 */
	public boolean runsOn(RedisTopology topology) {
		return this.topologies.contains(topology);
	}

}
