package io.github.redkit.testsupport;

import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.UUID;
import java.util.stream.Stream;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link TcpProxy#cutAfterNextWrite()} (and its aimed form) against a real server and a
 * real Lettuce client: the at-least-once delivery that every state-changing script must
 * survive. An aimed cut meets its command whatever form the script is sent in and
 * whatever reads its bytes arrive in.
 */
class TcpProxyCutAfterWriteTests {

	@Test
	void lettuceAppliesAPlainIncrTwiceAfterACutAfterTheWrite() {
		String key = "cut-after-write:" + UUID.randomUUID();
		throughAProxy((proxy, commands, direct) -> {
			assertThat(commands.ping()).isEqualTo("PONG");
			proxy.cutAfterNextWrite();
			// the first INCR's answer (1) is dropped; Lettuce reconnects and sends it
			// again: the caller sees the second answer
			assertThat(commands.incr(key)).isEqualTo(2);
			assertThat(proxy.cutsAfterWrite()).isEqualTo(1);
			assertThat(direct.call("GET", key)).as("applied twice").isEqualTo("2");
		}, key);
	}

	@Test
	void anAimedCutLetsOtherRequestsThroughAndCutsAfterTheOneItWaitsFor() {
		String other = "cut-after-write:" + UUID.randomUUID();
		String aimed = "cut-after-write:aimed:" + UUID.randomUUID();
		throughAProxy((proxy, commands, direct) -> {
			proxy.cutAfterNextWrite(aimed.getBytes(StandardCharsets.UTF_8));
			assertThat(commands.incr(other)).isEqualTo(1);
			assertThat(proxy.cutsAfterWrite()).isZero();
			assertThat(commands.incr(aimed)).as("sent again").isEqualTo(2);
			assertThat(proxy.cutsAfterWrite()).isEqualTo(1);
			assertThat(commands.incr(aimed)).as("one cut only").isEqualTo(3);
			assertThat(direct.call("GET", other)).isEqualTo("1");
		}, other, aimed);
	}

	@Test
	void onlyTheNextRequestIsCut() {
		String key = "cut-after-write:" + UUID.randomUUID();
		throughAProxy((proxy, commands, direct) -> {
			assertThat(commands.incr(key)).isEqualTo(1);
			assertThat(commands.incr(key)).isEqualTo(2);
			assertThat(proxy.cutsAfterWrite()).isZero();
			assertThat(direct.call("GET", key)).isEqualTo("2");
		}, key);
	}

	@Test
	void anAimedCutMeetsAnEvalOfItsScriptByTheSha1OfItsBody() {
		// a script Redis does not hold is sent with EVAL (after NOSCRIPT): its SHA-1 is
		// in no byte of the request
		String key = "cut-after-write:eval:" + UUID.randomUUID();
		String script = "return redis.call('INCR', KEYS[1]) -- " + UUID.randomUUID();
		byte[] sha1 = sha1(script);
		throughAProxy((proxy, commands, direct) -> {
			proxy.cutAfterNextWrite(sha1);
			assertThat(commands.<Long>eval(script, ScriptOutputType.INTEGER, key)).as("sent again").isEqualTo(2);
			assertThat(proxy.cutsAfterWrite()).isEqualTo(1);
			assertThat(proxy.cutsAfterWrite(sha1)).isEqualTo(1);
		}, key);
	}

	@Test
	void anAimedCutMeetsARequestWhoseMarkerTheProxyReadInTwoParts() throws Exception {
		// the proxy reads at most 16384 bytes at once: a SET whose value ends a few bytes
		// before that, then an EVALSHA whose SHA-1 straddles it, in one write
		RedisServer redis = RedisServers.standalone();
		String key = "cut-after-write:split:" + UUID.randomUUID();
		byte[] sha1 = sha1(key);
		String evalsha = "*3\r\n$7\r\nEVALSHA\r\n$40\r\n";
		String request = null;
		for (int size = 16000; request == null; size++) {
			String set = "*3\r\n$3\r\nSET\r\n$" + key.length() + "\r\n" + key + "\r\n$" + size + "\r\n"
					+ "x".repeat(size) + "\r\n";
			if (set.length() + evalsha.length() == 16384 - 20) {
				request = set + evalsha + new String(sha1, StandardCharsets.US_ASCII) + "\r\n$1\r\n0\r\n";
			}
		}
		try (TcpProxy proxy = TcpProxy.start(redis.port()); RespClient direct = redis.client(redis.port())) {
			proxy.cutAfterNextWrite(sha1);
			try (Socket socket = new Socket(RedisServer.HOST, proxy.port())) {
				socket.setSoTimeout(10_000);
				socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
				socket.getOutputStream().flush();
				// the SET's reply may arrive; the EVALSHA's (NOSCRIPT) never does: the
				// link closes
				assertThat(socket.getInputStream().readAllBytes()).hasSizeLessThanOrEqualTo("+OK\r\n".length());
			}
			assertThat(proxy.cutsAfterWrite(sha1)).isEqualTo(1);
			direct.call("DEL", key);
		}
	}

	/**
	 * Runs commands on a Lettuce client connected to the shared server through a proxy of
	 * their own, then deletes the keys they wrote.
	 */
	private static void throughAProxy(ProxiedCommands run, String... keys) {
		RedisServer redis = RedisServers.standalone();
		try (TcpProxy proxy = TcpProxy.start(redis.port()); RespClient direct = redis.client(redis.port())) {
			RedisClient client = RedisClient.create(RedisURI.builder()
				.withHost(RedisServer.HOST)
				.withPort(proxy.port())
				.withTimeout(Duration.ofSeconds(10))
				.build());
			try (StatefulRedisConnection<String, String> connection = client.connect()) {
				run.run(proxy, connection.sync(), direct);
			}
			finally {
				client.shutdown();
				direct.call(Stream.concat(Stream.of("DEL"), Arrays.stream(keys)).toArray(String[]::new));
			}
		}
	}

	/** The hex SHA-1 of a text, as Redis names a script. */
	private static byte[] sha1(String text) {
		try {
			return HexFormat.of()
				.formatHex(MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8)))
				.getBytes(StandardCharsets.US_ASCII);
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/** What a test does through the proxy. */
	@FunctionalInterface
	private interface ProxiedCommands {

		/**
		 * Runs.
		 * @param proxy the proxy between the client and the server
		 * @param commands the client's commands, through the proxy
		 * @param direct a client of the server, around the proxy
		 */
		void run(TcpProxy proxy, RedisCommands<String, String> commands, RespClient direct);

	}

}
