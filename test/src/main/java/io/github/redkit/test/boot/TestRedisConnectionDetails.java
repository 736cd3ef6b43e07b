package io.github.redkit.test.boot;

import java.util.List;

import io.github.redkit.testsupport.RedisServer;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;

/**
 * The connection details of the test Redis, as a {@code @ServiceConnection} container
 * would describe it.
 */
final class TestRedisConnectionDetails implements DataRedisConnectionDetails {

	private final RedisServer server;

	TestRedisConnectionDetails(RedisServer server) {
		this.server = server;
	}

	@Override
	public @Nullable Standalone getStandalone() {
		return this.server.isCluster() ? null : Standalone.of(RedisServer.HOST, this.server.port());
	}

	@Override
	public @Nullable Cluster getCluster() {
		if (!this.server.isCluster()) {
			return null;
		}
		List<Node> nodes = this.server.ports().stream().map((port) -> new Node(RedisServer.HOST, port)).toList();
		return () -> nodes;
	}

}
