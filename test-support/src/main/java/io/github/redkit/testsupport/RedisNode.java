package io.github.redkit.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

/**
 * One standalone {@code redis-server} process under a fault test's control: paused,
 * killed and started again empty, saved and restarted from that older snapshot, its
 * scripts flushed, and, where Debian's {@code libfaketime} is installed, its clock moved.
 * It keeps its port across restarts, so clients reconnect to the same address.
 */
public final class RedisNode implements AutoCloseable {

	private static final Path LIBFAKETIME = Path.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1");

	/**
	 * How long a replica may neither be in sync nor in a full sync before a wait for it
	 * fails: time to reconnect (a replica retries once a second) and take a partial
	 * stream, on a loaded machine.
	 */
	private static final Duration SYNC_QUIET = Duration.ofSeconds(15);

	/**
	 * The longest wait for a replica in a full sync: the master's fork and transfer and
	 * the replica's load of a test's data set, slowed many times over on a 2-core machine
	 * at a load of 30 (a full sync that took longer than 15 s ended the fault harness'
	 * nemesis; issue 43).
	 */
	static final Duration SYNC_LIMIT = Duration.ofMinutes(2);

	private final Path binary;

	private final Path directory;

	private final Path clockFile;

	private final boolean clockControlled;

	private final Map<String, String> environment = new HashMap<>();

	private RedisProcess process;

	private @Nullable RedisProcess replica;

	// the port of the master a failover killed, 0 before any
	private int formerMaster;

	private RedisNode(Path binary, Path directory, boolean clockControlled) {
		this.binary = binary;
		this.directory = directory;
		this.clockFile = directory.resolve("clock-offset");
		this.clockControlled = clockControlled;
		if (clockControlled) {
			write(this.clockFile, "+0");
			this.environment.put("LD_PRELOAD", LIBFAKETIME.toString());
			this.environment.put("FAKETIME_TIMESTAMP_FILE", this.clockFile.toString());
			this.environment.put("FAKETIME_NO_CACHE", "1");
			// a stepped wall clock, as NTP does; the monotonic clock goes on
			this.environment.put("FAKETIME_DONT_FAKE_MONOTONIC", "1");
		}
		this.process = process(FreePorts.find(false), null);
	}

	/**
	 * A process with a data file of its own, so that a master and its replica never share
	 * one.
	 */
	private RedisProcess process(int port, @Nullable Integer replicaOf) {
		// a replica syncs at once, not after the default 5 s wait for others to join
		List<String> arguments = new ArrayList<>(
				List.of("--dbfilename", dumpFile(port), "--repl-diskless-sync-delay", "0"));
		if (replicaOf != null) {
			arguments.addAll(List.of("--replicaof", RedisServer.HOST, String.valueOf(replicaOf)));
		}
		return new RedisProcess(this.binary, this.directory, port, arguments, this.environment);
	}

	private static String dumpFile(int port) {
		return "dump-" + port + ".rdb";
	}

	/**
	 * Starts a node on a free port, with the {@code redis-server} the other tests use.
	 * @return the started node
	 */
	public static RedisNode start() {
		return start(RedisBinary.locate(), false, false);
	}

	/**
	 * Starts a node on a free port with another server command, such as Valkey's (see
	 * {@link RedisBinary#named(String)}); its clock cannot be moved.
	 * @param command the command, which takes {@code redis-server}'s arguments
	 * @param withReplica whether it gets a replica (see {@link #startWithReplica})
	 * @return the started node
	 */
	public static RedisNode start(Path command, boolean withReplica) {
		return start(command, false, withReplica);
	}

	/**
	 * Starts a node with a replica, so that {@link #failOverBehind(Duration)} can promote
	 * it.
	 * @param movableClock whether the clocks of both can be moved (see
	 * {@link #startWithMovableClock()}); ignored where they cannot
	 * @return the started node, its replica in sync
	 */
	public static RedisNode startWithReplica(boolean movableClock) {
		boolean movable = movableClock && movableClockAvailable();
		return start(movable ? RedisBinary.embedded().orElseThrow() : RedisBinary.locate(), movable, true);
	}

	/**
	 * Whether nodes with a movable clock can be started here: Debian's libfaketime and
	 * the embedded-redis binary are both present.
	 * @return true when they can
	 */
	public static boolean movableClockAvailable() {
		return Files.isReadable(LIBFAKETIME) && RedisBinary.embedded().isPresent();
	}

	/**
	 * Starts a node whose wall clock {@link #shiftClock(Duration)} can move. Debian's
	 * {@code redis-server} is built with jemalloc, which {@code libfaketime} cannot wrap;
	 * the binary shipped in embedded-redis can be.
	 * @return the started node, or empty where libfaketime or that binary is missing
	 */
	public static Optional<RedisNode> startWithMovableClock() {
		if (!movableClockAvailable()) {
			return Optional.empty();
		}
		return Optional.of(start(RedisBinary.embedded().orElseThrow(), true, false));
	}

	private static RedisNode start(Path binary, boolean clockControlled, boolean withReplica) {
		try {
			RedisNode node = new RedisNode(binary, Files.createTempDirectory("redkit-node-"), clockControlled);
			node.process.start();
			if (withReplica) {
				node.startReplica();
			}
			return node;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private void startReplica() {
		startReplicaOn(FreePorts.find(false));
	}

	private void startReplicaOn(int port) {
		RedisProcess standby = process(port, this.process.port());
		standby.start();
		this.replica = standby;
		awaitInSync(standby);
	}

	private void awaitInSync(RedisProcess replica) {
		SyncWait wait = new SyncWait(SYNC_QUIET, SYNC_LIMIT);
		ReplicationState state = null;
		while (true) {
			try (RespClient client = RespClient.connect(RedisServer.HOST, replica.port(), Duration.ofSeconds(1))) {
				state = ReplicationState.of(client);
				if (state.linkUp()) {
					return;
				}
			}
			catch (RuntimeException ex) {
				// still starting, or loading what its master sent
			}
			if (!wait.goOn(fullSync(state, replica.port()))) {
				throw new IllegalStateException(
						"The replica on port " + replica.port() + " did not sync in " + wait.waited() + ": " + state);
			}
			RedisProcess.sleep(20);
		}
	}

	/**
	 * Fails over to a replica that is behind, as Sentinel would when the master dies
	 * before its replica received its last writes: the replication link is cut now (the
	 * replica frozen, the master dropping it), the master keeps acknowledging writes for
	 * {@code behind}, then dies; the replica is promoted and the old master comes back as
	 * its replica. Clients reach the new master at {@link #port()}, a new port: a test
	 * points its proxies there ({@link TcpProxy#retarget(int)}), best between
	 * {@link #promoteReplica()} and {@link #restoreReplica()}, as Sentinel's clients
	 * learn the new master before the old one is back.
	 * @param behind how long the master acknowledges writes the replica never receives
	 */
	public void failOverBehind(Duration behind) {
		cutReplica();
		RedisProcess.sleep(behind.toMillis());
		promoteReplica();
		restoreReplica();
	}

	/**
	 * Cuts the replica off: frozen, and dropped by the master, so that nothing the master
	 * acknowledges from now on reaches it.
	 */
	public void cutReplica() {
		cutReplica(SYNC_QUIET);
	}

	/**
	 * Cuts the replica off, failing when it neither holds what the master acknowledged
	 * nor syncs for {@code quiet} (a test of that wait shortens it, and the full sync it
	 * waits out with it).
	 * @param quiet how long the replica may neither hold it nor sync
	 */
	synchronized void cutReplica(Duration quiet) {
		RedisProcess standby = standby();
		// what the master acknowledged before the cut reached the replica: replication is
		// asynchronous, and a write acknowledged a moment before would otherwise be lost
		// too, beyond what the cut is meant to lose
		ReplicationState acknowledged;
		try (RespClient client = client()) {
			acknowledged = ReplicationState.of(client);
		}
		awaitHolds(standby.port(), acknowledged, quiet, SYNC_LIMIT);
		standby.signal("STOP");
		try (RespClient client = client()) {
			client.call("CLIENT", "KILL", "TYPE", "replica");
		}
	}

	/**
	 * Waits until the replica holds what the master had acknowledged: in the master's
	 * replication history, not only as far in its own. A master restarted (empty, or on a
	 * snapshot) begins a new history, and until its replica synced again (up to a second
	 * to reconnect, then a full sync) the replica's offset still counts the old one,
	 * often past the new one's: compared alone, it let a failover right after a restart
	 * lose writes acknowledged before the cut (issue 43). A full sync on a loaded machine
	 * (the master's fork and transfer, the replica's load, during which it may not answer
	 * for seconds) is waited for up to {@link #SYNC_LIMIT}; a replica that neither holds
	 * it nor syncs for its quiet spell ({@link #SYNC_QUIET} but in a test of the wait)
	 * fails the wait, naming what it saw.
	 */
	void awaitHolds(int replicaPort, ReplicationState acknowledged, Duration quiet, Duration limit) {
		SyncWait wait = new SyncWait(quiet, limit);
		ReplicationState state = null;
		ReplicationState now;
		RespClient client = null;
		try (RespClient master = client()) {
			while (true) {
				now = ReplicationState.of(master);
				try {
					if (client == null) {
						client = RespClient.connect(RedisServer.HOST, replicaPort, Duration.ofSeconds(2));
					}
					state = ReplicationState.of(client);
				}
				catch (RuntimeException ex) {
					// loading what its master sent, between two reads of the socket (or
					// frozen: then no sync is seen under way and the quiet spell ends it)
					close(client);
					client = null;
					state = null;
				}
				if (state != null && state.holds(acknowledged, now)) {
					return;
				}
				boolean syncing = (state != null && state.syncing())
						|| ReplicationState.fullSyncTo(master, replicaPort);
				if (!wait.goOn(syncing)) {
					// failing over now would lose more than the cut is meant to
					throw new IllegalStateException(
							"The replica on port " + replicaPort + " did not catch up with its master in "
									+ wait.waited() + ": " + ((state != null) ? state : "no answer") + ", master " + now
									+ ", acknowledged " + acknowledged);
				}
				RedisProcess.sleep(syncing ? 10 : 1);
			}
		}
		finally {
			close(client);
		}
	}

	/**
	 * Whether the replica is in a full sync, by its own answer or by its master's.
	 */
	private boolean fullSync(@Nullable ReplicationState replica, int replicaPort) {
		if (replica != null && replica.syncing()) {
			return true;
		}
		try (RespClient master = client()) {
			return ReplicationState.fullSyncTo(master, replicaPort);
		}
	}

	private static void close(@Nullable RespClient client) {
		if (client != null) {
			client.close();
		}
	}

	/**
	 * Kills the master and promotes the replica cut off by {@link #cutReplica()}; until
	 * {@link #restoreReplica()} the node has no replica, and nothing answers on the old
	 * master's port, so that clients still pointed there fail rather than read a replica
	 * that is syncing.
	 */
	public synchronized void promoteReplica() {
		RedisProcess standby = standby();
		this.process.kill();
		standby.signal("CONT");
		try (RespClient client = RespClient.connect(RedisServer.HOST, standby.port(), Duration.ofSeconds(5))) {
			client.call("REPLICAOF", "NO", "ONE");
		}
		this.formerMaster = this.process.port();
		delete(this.directory.resolve(dumpFile(this.formerMaster)));
		this.process = standby;
		this.replica = null;
	}

	/**
	 * Starts the old master again, empty, as the new master's replica, on its old port.
	 */
	public synchronized void restoreReplica() {
		if (this.replica == null && this.formerMaster != 0) {
			startReplicaOn(this.formerMaster);
		}
	}

	private RedisProcess standby() {
		RedisProcess standby = this.replica;
		if (standby == null) {
			throw new IllegalStateException("The node was not started with a replica");
		}
		return standby;
	}

	/**
	 * The port of the replica, if there is one.
	 * @return the port, 0 without a replica
	 */
	int replicaPort() {
		RedisProcess standby = this.replica;
		return (standby != null) ? standby.port() : 0;
	}

	/**
	 * The port of the master, which a failover changes.
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
	public synchronized void pause() {
		this.process.signal("STOP");
	}

	/**
	 * Continues a paused process ({@code SIGCONT}).
	 */
	public synchronized void resume() {
		this.process.signal("CONT");
	}

	/**
	 * Kills the process ({@code SIGKILL}) and starts it again with no data.
	 */
	public synchronized void restartEmpty() {
		this.process.kill();
		delete(dump());
		this.process.start();
	}

	private Path dump() {
		return this.directory.resolve(dumpFile(this.process.port()));
	}

	/**
	 * Saves the data set now ({@code SAVE}) as the snapshot a later
	 * {@link #restartFromSnapshot()} comes back with.
	 */
	public synchronized void snapshot() {
		try (RespClient client = client()) {
			save(client);
		}
		copy(dump(), this.directory.resolve("snapshot.rdb"));
	}

	/**
	 * Saves once the background save that may be running ends: Redis refuses a
	 * {@code SAVE} meanwhile, and a replica's full sync forks one (after a restart, for
	 * one), which ended the nemesis and every fault after it (issue 43); as long as a
	 * full sync may take.
	 */
	private static void save(RespClient client) {
		long deadline = System.nanoTime() + SYNC_LIMIT.toNanos();
		while (true) {
			try {
				client.call("SAVE");
				return;
			}
			catch (RespClient.RespErrorException ex) {
				String message = ex.getMessage();
				if (message == null || !message.contains("in progress") || System.nanoTime() > deadline) {
					throw ex;
				}
				RedisProcess.sleep(5);
			}
		}
	}

	/**
	 * Kills the process and starts it again on the last snapshot: everything written
	 * since is gone, as after a restore from a backup or a restart on an old RDB file.
	 */
	public synchronized void restartFromSnapshot() {
		this.process.kill();
		Path snapshot = this.directory.resolve("snapshot.rdb");
		if (Files.exists(snapshot)) {
			copy(snapshot, dump());
		}
		else {
			delete(dump());
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
	public synchronized void close() {
		if (this.replica != null) {
			this.replica.stop();
		}
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

	/**
	 * When a wait for a replica gives up: after a quiet spell in which no full sync was
	 * under way, each sync seen pushing the end a quiet spell further, up to a limit.
	 */
	private static final class SyncWait {

		private final long started = System.nanoTime();

		private final long quiet;

		private final long limit;

		private long deadline;

		private boolean syncSeen;

		SyncWait(Duration quiet, Duration limit) {
			this.quiet = quiet.toNanos();
			this.limit = this.started + limit.toNanos();
			this.deadline = this.started + this.quiet;
		}

		/**
		 * Whether to wait on.
		 * @param syncing whether the replica is in a full sync now
		 * @return false once the wait is over
		 */
		boolean goOn(boolean syncing) {
			long now = System.nanoTime();
			if (syncing) {
				this.syncSeen = true;
				this.deadline = Math.max(this.deadline, Math.min(this.limit, now + this.quiet));
			}
			return now <= this.deadline;
		}

		String waited() {
			return String.format("%.1f s (%s)", (System.nanoTime() - this.started) / 1e9,
					this.syncSeen ? "a full sync was seen under way" : "no full sync was seen under way");
		}

	}

}
