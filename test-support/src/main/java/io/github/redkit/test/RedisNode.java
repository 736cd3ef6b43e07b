package io.github.redkit.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One standalone {@code redis-server} process under a fault test's control: paused,
 * killed and started again empty, saved and restarted from that older snapshot, its
 * scripts flushed, and, where Debian's {@code libfaketime} is installed, its clock moved.
 * It keeps its port across restarts, so clients reconnect to the same address.
 */
public final class RedisNode implements AutoCloseable {

	private static final Path LIBFAKETIME = Path.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1");

	private final Path directory;

	private final RedisProcess process;

	private final Path clockFile;

	private final boolean clockControlled;

	private RedisNode(Path binary, Path directory, int port, boolean clockControlled) {
		this.directory = directory;
		this.clockFile = directory.resolve("clock-offset");
		this.clockControlled = clockControlled;
		Map<String, String> environment = new HashMap<>();
		if (clockControlled) {
			write(this.clockFile, "+0");
			environment.put("LD_PRELOAD", LIBFAKETIME.toString());
			environment.put("FAKETIME_TIMESTAMP_FILE", this.clockFile.toString());
			environment.put("FAKETIME_NO_CACHE", "1");
			// a stepped wall clock, as NTP does; the monotonic clock goes on
			environment.put("FAKETIME_DONT_FAKE_MONOTONIC", "1");
		}
		this.process = new RedisProcess(binary, directory, port, List.of("--dbfilename", "dump.rdb"), environment);
	}

	/**
	 * Starts a node on a free port, with the {@code redis-server} the other tests use.
	 * @return the started node
	 */
	public static RedisNode start() {
		return start(RedisBinary.locate(), false);
	}

	/**
	 * Starts a node whose wall clock {@link #shiftClock(Duration)} can move. Debian's
	 * {@code redis-server} is built with jemalloc, which {@code libfaketime} cannot wrap;
	 * the binary shipped in embedded-redis can be.
	 * @return the started node, or empty where libfaketime or that binary is missing
	 */
	public static Optional<RedisNode> startWithMovableClock() {
		if (!Files.isReadable(LIBFAKETIME)) {
			return Optional.empty();
		}
		return RedisBinary.embedded().map((binary) -> start(binary, true));
	}

	private static RedisNode start(Path binary, boolean clockControlled) {
		try {
			RedisNode node = new RedisNode(binary, Files.createTempDirectory("redkit-node-"), FreePorts.find(false),
					clockControlled);
			node.process.start();
			return node;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * The node's port, the same across restarts.
	 * @return the port
	 */
	public int port() {
		return this.process.port();
	}

	/**
	 * A new connection to the node.
	 * @return a client; close it after use
	 */
	public RespClient client() {
		return RespClient.connect(RedisServer.HOST, port(), Duration.ofSeconds(5));
	}

	/**
	 * Stops the process ({@code SIGSTOP}): connections stay open, nothing answers.
	 */
	public void pause() {
		this.process.signal("STOP");
	}

	/**
	 * Continues a paused process ({@code SIGCONT}).
	 */
	public void resume() {
		this.process.signal("CONT");
	}

	/**
	 * Kills the process ({@code SIGKILL}) and starts it again with no data.
	 */
	public void restartEmpty() {
		this.process.kill();
		delete(this.directory.resolve("dump.rdb"));
		this.process.start();
	}

	/**
	 * Saves the data set now ({@code SAVE}) as the snapshot a later
	 * {@link #restartFromSnapshot()} comes back with.
	 */
	public void snapshot() {
		try (RespClient client = client()) {
			client.call("SAVE");
		}
		copy(this.directory.resolve("dump.rdb"), this.directory.resolve("snapshot.rdb"));
	}

	/**
	 * Kills the process and starts it again on the last snapshot: everything written
	 * since is gone, as after a restore from a backup or a restart on an old RDB file.
	 */
	public void restartFromSnapshot() {
		this.process.kill();
		Path snapshot = this.directory.resolve("snapshot.rdb");
		if (Files.exists(snapshot)) {
			copy(snapshot, this.directory.resolve("dump.rdb"));
		}
		else {
			delete(this.directory.resolve("dump.rdb"));
		}
		this.process.start();
	}

	/**
	 * Whether {@link #shiftClock(Duration)} moves this node's clock.
	 * @return true when started with a movable clock
	 */
	public boolean clockMovable() {
		return this.clockControlled;
	}

	/**
	 * Sets how far the node's wall clock is from the machine's, from its next reading on:
	 * keys expire, {@code TIME} answers and scripts read the moved clock.
	 * @param offset the offset in whole seconds, negative for a clock behind
	 */
	public void shiftClock(Duration offset) {
		if (!this.clockControlled) {
			throw new IllegalStateException("The node was not started with a movable clock");
		}
		write(this.clockFile, (offset.isNegative() ? "" : "+") + offset.toSeconds() + "s");
	}

	/**
	 * Stops the process for good.
	 */
	@Override
	public void close() {
		this.process.stop();
	}

	private static void write(Path file, String content) {
		try {
			Path temporary = file.resolveSibling(file.getFileName() + ".tmp");
			Files.writeString(temporary, content);
			Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static void copy(Path from, Path to) {
		try {
			Files.copy(from, to, StandardCopyOption.REPLACE_EXISTING);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static void delete(Path file) {
		try {
			Files.deleteIfExists(file);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
