package io.github.redkit.testsupport;

import java.io.IOException;
import java.util.function.Supplier;

import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;

import static io.github.redkit.testsupport.RedisServers.startStandalone;

/**
 * Test code that starts servers, each spelled its own way, for
 * {@link HandStartedServersRuleTests}; nothing here runs.
 */
final class HandStartedFixtures {

	private HandStartedFixtures() {
	}

	static final class PlainCall {

		RedisServer start() {
			return RedisServers.startStandalone();
		}

	}

	static final class StaticImport {

		RedisServer start() {
			return startStandalone();
		}

	}

	static final class MethodReference {

		Supplier<RedisNode> start() {
			return RedisNode::start;
		}

	}

	static final class SplitOverTwoLines {

		// @formatter:off
		RedisServer start() {
			return RedisServers
				.startCluster();
		}
		// @formatter:on

	}

	static final class InALambda {

		Runnable start() {
			return () -> RedisServers.startSentinel(java.time.Duration.ofSeconds(1)).close();
		}

	}

	static final class EmbeddedRedisConstructor {

		redis.embedded.RedisServer start() throws IOException {
			return new redis.embedded.RedisServer(6399);
		}

	}

	static final class ProcessBuilderOfTheServer {

		Process start() throws IOException {
			return new ProcessBuilder("redis-server", "--port", "6399").start();
		}

	}

	static final class RuntimeExecOfTheServer {

		Process start() throws IOException {
			return Runtime.getRuntime().exec(new String[] { "valkey-server", "--port", "6399" });
		}

	}

	static final class ProcessBuilderOfTheLocatedBinary {

		Process start() throws IOException {
			return new ProcessBuilder(RedisBinary.locate().toString(), "--port", "6399").start();
		}

	}

	/** Starts a server it was given, stopped by someone else. */
	static final class StartOfAGivenServer {

		void start(RedisServer server) {
			server.start();
		}

	}

	/**
	 * Constructs a container of a Testcontainers module outside
	 * {@code org.testcontainers} (as {@code com.redis.testcontainers.RedisContainer} is).
	 */
	static final class ContainerOfAnotherModule {

		GenericContainer<?> start() {
			return new AnotherModulesContainer();
		}

	}

	static final class AnotherModulesContainer extends GenericContainer<AnotherModulesContainer> {

		AnotherModulesContainer() {
			super(DockerImageName.parse("redis:7"));
		}

	}

	/** Starts the server binary whose path a helper class of its module gives. */
	static final class ProcessBuilderOfAHelpersBinary {

		Process start() throws IOException {
			return new ProcessBuilder(ServerBinary.path(), "--port", "6399").start();
		}

	}

	/** Gives the server binary's path; starts nothing itself. */
	static final class ServerBinary {

		static String path() {
			return RedisBinary.locate().toString();
		}

	}

	/** Stops its own server and starts it again: a restart, no start. */
	static final class Restart {

		void restart(@PrivateRedis RedisServer server) {
			server.stop();
			server.start();
		}

	}

	/** Starts a process that is no server: no start of a server. */
	static final class OtherProcess {

		Process signal(long pid) throws IOException {
			return new ProcessBuilder("kill", "-STOP", Long.toString(pid)).start();
		}

	}

	/** Reads a server it was given and the shared one: no start. */
	static final class GivenServers {

		int ports(@PrivateRedis RedisServer server) {
			return server.port() + RedisTopology.STANDALONE.server().port() + RedisServers.unusedPort();
		}

	}

}
