package io.github.redkit.testsupport;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RequestFrames}: a client's commands whole, wherever the reads split them.
 */
class RequestFramesTests {

	private static final String PIPELINE = "*3\r\n$7\r\nEVALSHA\r\n$40\r\n" + "a".repeat(40) + "\r\n$1\r\n0\r\n"
			+ "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$0\r\n\r\n" + "PING\r\n";

	@Test
	void everyCommandComesWholeOnceWhereverTwoReadsSplitTheBytes() {
		byte[] bytes = PIPELINE.getBytes(StandardCharsets.US_ASCII);
		for (int split = 0; split <= bytes.length; split++) {
			RequestFrames frames = new RequestFrames();
			List<List<String>> commands = new ArrayList<>(text(frames.feed(Arrays.copyOfRange(bytes, 0, split))));
			commands.addAll(text(frames.feed(Arrays.copyOfRange(bytes, split, bytes.length))));
			assertThat(commands).as("split at %d", split)
				.containsExactly(List.of("EVALSHA", "a".repeat(40), "0"), List.of("SET", "k", ""), List.of("PING"));
		}
	}

	@Test
	void bytesThatAreNotACommandComeAsOneArgumentAndTheNextReadIsFramedAfresh() {
		RequestFrames frames = new RequestFrames();
		assertThat(text(frames.feed("*x\r\n".getBytes(StandardCharsets.US_ASCII)))).containsExactly(List.of("*x\r\n"));
		assertThat(text(frames.feed("*1\r\n$4\r\nPING\r\n".getBytes(StandardCharsets.US_ASCII))))
			.containsExactly(List.of("PING"));
	}

	private static List<List<String>> text(List<List<byte[]>> commands) {
		return commands.stream()
			.map((command) -> command.stream()
				.map((argument) -> new String(argument, StandardCharsets.US_ASCII))
				.toList())
			.toList();
	}

}
