package io.github.redkit.actuate;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import io.github.redkit.testsupport.CommandLog;
import io.github.redkit.testsupport.RedisServer;
import io.github.redkit.testsupport.RedisServers;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A cursor's {@code ~COUNT} is the client's to write: whatever it says, no {@code SCAN}
 * is sent with a {@code COUNT} above {@code scan-count} ({@code MONITOR}), so that a
 * cursor such as {@code 0~999999} cannot make Redis walk its whole keyspace in one
 * blocking call.
 */
class KeyScanCountTests {

	private static final int SCAN_COUNT = 100;

	private final String prefix = "redkit-test-" + UUID.randomUUID();

	@Test
	void noScanIsSentWithACountAboveScanCountWhateverTheCursorSays() {
		RedisServer server = RedisServers.standalone();
		LettuceConnectionFactory connectionFactory = server.createConnectionFactory();
		try {
			String match = KeyScan.escapeGlob(this.prefix + ":lock:") + "{*}";
			EndpointSettings settings = new EndpointSettings(false, Duration.ofSeconds(5), SCAN_COUNT, 100);
			List<String> cursors = List.of("0~999999", "0~101", "5~500000", "0.~999999");
			List<String> next = new ArrayList<>();
			CommandLog log = CommandLog.record(server, () -> {
				try (RedisConnection connection = connectionFactory.getConnection()) {
					for (String cursor : cursors) {
						next.add(KeyScan.scan(connection, cursor, match, settings, 10, (key) -> true).cursor());
					}
				}
			});
			List<Long> counts = log.clientCommands()
				.stream()
				.filter((command) -> command.startsWith("\"scan\"") && command.contains(this.prefix))
				.map(KeyScanCountTests::count)
				.toList();
			assertThat(counts).as("the COUNT of each SCAN: %s", log).hasSizeGreaterThanOrEqualTo(cursors.size());
			assertThat(counts).as("the COUNT of each SCAN")
				.allSatisfy((count) -> assertThat(count).isBetween(1L, (long) SCAN_COUNT));
			// nor does a page hand a larger one on
			assertThat(next).as("the next pages' cursors").noneMatch((cursor) -> cursor.contains("~"));
		}
		finally {
			connectionFactory.destroy();
		}
	}

	// "scan" "0" "MATCH" "..." "COUNT" "100" -> 100
	private static long count(String command) {
		String[] words = command.split("\" \"");
		for (int i = 0; i < words.length - 1; i++) {
			if (words[i].equalsIgnoreCase("count")) {
				return Long.parseLong(words[i + 1].replace("\"", ""));
			}
		}
		throw new IllegalStateException("no COUNT in " + command);
	}

}
