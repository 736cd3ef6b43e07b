package io.github.redkit.testsupport;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Surefire runs several JVMs at once: a port one of them found must not be handed out by
 * another while the first still holds it (a server stopped for a restart frees its
 * socket, not its claim). A CI run failed with {@code redis-server exited with 1} when
 * two forks started servers on one port.
 */
class FreePortsTests {

	/**
	 * Ports are handed out below the kernel's ephemeral range, which it reads from
	 * {@code /proc}: {@code Files.readString} read one byte of that file (procfs reports
	 * no size), so the range fell back to 45000 and ports from 32768 up were handed out
	 * inside it, where an outgoing connection could take one before its server bound it
	 * (a valkey server failed to start so in an idle plain verify of three module
	 * threads).
	 */
	@Test
	void portsAreHandedOutBelowTheKernelsEphemeralRange() throws Exception {
		Path range = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
		assumeTrue(Files.isReadable(range), "no /proc here");
		int start;
		try (BufferedReader reader = Files.newBufferedReader(range)) {
			start = Integer.parseInt(reader.readLine().trim().split("\\s+")[0]);
		}
		assumeTrue(start > 21000, "an ephemeral range too low to leave room below it");
		for (int i = 0; i < 50; i++) {
			assertThat(FreePorts.find(false)).isLessThan(start);
			assertThat(FreePorts.find(true) + 10000).isLessThan(start);
		}
	}

	@Test
	void aPortAnotherJvmFoundIsNotHandedOutHereUntilThatJvmEnds() throws Exception {
		Process holder = holder();
		try {
			int port = portOf(holder);
			assertThat(FreePorts.reserve(port)).as("port %d, found by another JVM that still runs", port).isFalse();
			holder.getOutputStream().close();
			assertThat(holder.waitFor(30, TimeUnit.SECONDS)).isTrue();
			assertThat(FreePorts.reserve(port)).as("port %d, once the other JVM ended", port).isTrue();
		}
		finally {
			holder.destroyForcibly();
		}
	}

	/**
	 * A JVM that asks again for a port it claims, while nothing is bound there, keeps its
	 * claim: a second channel on the lock file, closed, dropped the JVM's lock on it.
	 */
	@Test
	void aPortAnotherJvmAskedForAgainStaysClaimedForIt() throws Exception {
		Process holder = holder("reserve-again");
		try {
			int port = portOf(holder);
			assertThat(FreePorts.reserve(port)).as("port %d, asked for again by the JVM that holds it", port).isFalse();
		}
		finally {
			holder.destroyForcibly();
		}
	}

	/**
	 * A folder of claims another user made cannot be written (here: a file stands where
	 * the folder would be); the JVMs of this user still claim ports from one another,
	 * where they said they would, instead of silently each for itself.
	 */
	@Test
	void portsStayClaimedForTheMachineWhenTheSharedClaimsCannotBeWritten(@TempDir Path temporary) throws Exception {
		Files.writeString(temporary.resolve("redkit-ports"), "not a folder");
		String otherTemporary = "-Djava.io.tmpdir=" + temporary;
		Process holder = holder(otherTemporary);
		try {
			int port = portOf(holder);
			Process second = holder(otherTemporary, "reserve", Integer.toString(port));
			assertThat(lineOf(second)).as("port %d, found by another JVM of this user that still runs", port)
				.isEqualTo("false");
			assertThat(second.waitFor(30, TimeUnit.SECONDS)).isTrue();
		}
		finally {
			holder.destroyForcibly();
		}
	}

	/**
	 * A second JVM, {@link PortHolder}.
	 * @param arguments its system properties ({@code -D...}) first, then its arguments
	 */
	private static Process holder(String... arguments) throws IOException {
		List<String> command = new ArrayList<>(
				List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
						System.getProperty("java.class.path")));
		List<String> rest = new ArrayList<>(List.of(arguments));
		while (!rest.isEmpty() && rest.get(0).startsWith("-D")) {
			command.add(rest.remove(0));
		}
		command.add(PortHolder.class.getName());
		command.addAll(rest);
		return new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
	}

	private static int portOf(Process holder) throws IOException {
		return Integer.parseInt(lineOf(holder));
	}

	/** The next line a holder printed for the test, past any log line. */
	private static String lineOf(Process process) throws IOException {
		BufferedReader output = new BufferedReader(
				new InputStreamReader(process.getInputStream(), StandardCharsets.US_ASCII));
		for (String line = output.readLine(); line != null; line = output.readLine()) {
			if (line.matches("\\d+|true|false")) {
				return line;
			}
		}
		throw new IllegalStateException("the holder ended without an answer");
	}

}
