package io.github.redkit.core.internal;

import java.util.Properties;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which servers take which native command, read from {@code INFO server}: every node of a
 * cluster must.
 */
class ServerVersionsTests {

	@Test
	void setIfEqualFromValkey81AndRedis84() {
		assertThat(ServerVersions.setIfEqual(valkey("8.1.1"))).isTrue();
		assertThat(ServerVersions.setIfEqual(valkey("9.1.2"))).isTrue();
		assertThat(ServerVersions.setIfEqual(valkey("8.0.4"))).isFalse();
		assertThat(ServerVersions.setIfEqual(redis("8.4.0"))).isTrue();
		assertThat(ServerVersions.setIfEqual(redis("8.0.2"))).isFalse();
	}

	@Test
	void deleteIfEqualFromValkey90Only() {
		assertThat(ServerVersions.deleteIfEqual(valkey("9.0.0"))).isTrue();
		assertThat(ServerVersions.deleteIfEqual(valkey("9.1.2"))).isTrue();
		assertThat(ServerVersions.deleteIfEqual(valkey("8.1.1"))).isFalse();
		// Redis names its own command (DELEX ... IFEQ)
		assertThat(ServerVersions.deleteIfEqual(redis("8.4.0"))).isFalse();
		assertThat(ServerVersions.deleteIfEqual(new Properties())).isFalse();
	}

	@Test
	void ackDeleteFromRedis82Only() {
		assertThat(ServerVersions.ackDelete(redis("8.2.0"))).isTrue();
		assertThat(ServerVersions.ackDelete(redis("8.4.1"))).isTrue();
		assertThat(ServerVersions.ackDelete(redis("8.0.3"))).isFalse();
		assertThat(ServerVersions.ackDelete(redis("7.4.2"))).isFalse();
		assertThat(ServerVersions.ackDelete(valkey("9.0.0"))).isFalse();
		assertThat(ServerVersions.ackDelete(new Properties())).isFalse();
	}

	@Test
	void aClusterTakesACommandOnlyWhenEveryNodeDoes() {
		Properties cluster = new Properties();
		cluster.setProperty("127.0.0.1:7000.redis_version", "7.2.4");
		cluster.setProperty("127.0.0.1:7000.valkey_version", "9.1.2");
		cluster.setProperty("127.0.0.1:7001.redis_version", "7.2.4");
		cluster.setProperty("127.0.0.1:7001.valkey_version", "8.1.1");
		assertThat(ServerVersions.setIfEqual(cluster)).isTrue();
		assertThat(ServerVersions.deleteIfEqual(cluster)).isFalse();
		cluster.setProperty("127.0.0.1:7001.valkey_version", "9.0.0");
		assertThat(ServerVersions.deleteIfEqual(cluster)).isTrue();
	}

	private static Properties valkey(String version) {
		Properties info = redis("7.2.4");
		info.setProperty("valkey_version", version);
		return info;
	}

	private static Properties redis(String version) {
		Properties info = new Properties();
		info.setProperty("redis_version", version);
		return info;
	}

}
