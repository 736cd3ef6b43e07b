package io.github.redkit.sample;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redkit.testsupport.RedisServer;
import io.github.redkit.testsupport.RedisServers;
import io.github.redkit.testsupport.RespClient;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringApplication;
import org.springframework.mock.env.MockEnvironment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * The sample's embedded Redis: started only when nothing is configured (or where the
 * {@code regions} profile asks for it), never in place of a configured Redis, and never
 * left running by an application killed with {@code SIGKILL}.
 */
class EmbeddedRedisTests {

	private final EmbeddedRedisEnvironmentPostProcessor postProcessor = new EmbeddedRedisEnvironmentPostProcessor(
			(destination) -> destination.get());

	@Test
	void aConfiguredRedisThatIsNotUpYetIsWaitedForNotReplaced() throws Exception {
		int port = freePort();
		MockEnvironment environment = new MockEnvironment().withProperty("spring.data.redis.host", "127.0.0.1")
			.withProperty("spring.data.redis.port", String.valueOf(port));
		// the configured Redis comes up while the application starts
		CompletableFuture<RedisServer> starting = CompletableFuture
			.supplyAsync(() -> RedisServers.startStandalone(port));
		try {
			this.postProcessor.postProcessEnvironment(environment, new SpringApplication());
			assertThat(environment.getPropertySources().contains("embeddedRedis")).isFalse();
			assertThat(environment.getProperty("spring.data.redis.port")).isEqualTo(String.valueOf(port));
		}
		finally {
			starting.get(30, TimeUnit.SECONDS).close();
		}
	}

	@Test
	void aConfiguredRedisThatNeverAnswersFailsStartUpNamingIt() throws Exception {
		int port = freePort();
		MockEnvironment environment = new MockEnvironment().withProperty("spring.data.redis.host", "127.0.0.1")
			.withProperty("spring.data.redis.port", String.valueOf(port))
			.withProperty("sample.redis-wait", "300ms");
		assertThatIllegalStateException()
			.isThrownBy(() -> this.postProcessor.postProcessEnvironment(environment, new SpringApplication()))
			.withMessageContaining("127.0.0.1:" + port)
			.withMessageContaining("spring.data.redis");
		assertThat(environment.getPropertySources().contains("embeddedRedis")).isFalse();
	}

	@Test
	void anApplicationKilledWithSigkillLeavesNoRedisBehind() throws Exception {
		int port = freePort();
		Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
				System.getProperty("java.class.path"), EmbeddedRedisChild.class.getName(), String.valueOf(port))
			.redirectError(ProcessBuilder.Redirect.DISCARD)
			.start();
		try {
			BufferedReader out = new BufferedReader(
					new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
			String line;
			do {
				line = out.readLine();
			}
			while (line != null && !line.startsWith("redis "));
			assertThat(line).isEqualTo("redis " + port);
			assertThat(answers(port)).isTrue();
			child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
			await().atMost(Duration.ofSeconds(10)).until(() -> !answers(port));
		}
		finally {
			child.destroyForcibly();
			if (answers(port)) {
				try (RespClient client = RespClient.connect(RedisServer.HOST, port, Duration.ofSeconds(1))) {
					client.call("SHUTDOWN", "NOSAVE");
				}
				catch (RuntimeException ex) {
					// SHUTDOWN closes the connection without a reply
				}
			}
		}
	}

	private static boolean answers(int port) {
		try (RespClient client = RespClient.connect(RedisServer.HOST, port, Duration.ofSeconds(1))) {
			return "PONG".equals(client.call("PING"));
		}
		catch (RuntimeException ex) {
			return false;
		}
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

}
