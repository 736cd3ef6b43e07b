package io.github.redkit.testsupport;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Surefire runs several JVMs at once: a port one of them found must not be handed out by
 * another while the first still holds it (a server stopped for a restart frees its
 * socket, not its claim). A CI run failed with {@code redis-server exited with 1} when
 * two forks started servers on one port.
 */
class FreePortsTests {

	@Test
	void aPortAnotherJvmFoundIsNotHandedOutHereUntilThatJvmEnds() throws Exception {
		Process holder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
				System.getProperty("java.class.path"), PortHolder.class.getName())
			.redirectError(ProcessBuilder.Redirect.INHERIT)
			.start();
		try {
			BufferedReader output = new BufferedReader(
					new InputStreamReader(holder.getInputStream(), StandardCharsets.US_ASCII));
			int port = Integer.parseInt(output.readLine().trim());
			assertThat(FreePorts.reserve(port)).as("port %d, found by another JVM that still runs", port).isFalse();
			holder.getOutputStream().close();
			assertThat(holder.waitFor(30, TimeUnit.SECONDS)).isTrue();
			assertThat(FreePorts.reserve(port)).as("port %d, once the other JVM ended", port).isTrue();
		}
		finally {
			holder.destroyForcibly();
		}
	}

}
