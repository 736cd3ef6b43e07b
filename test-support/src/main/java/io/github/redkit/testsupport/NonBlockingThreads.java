package io.github.redkit.testsupport;

import java.lang.management.ManagementFactory;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Assumptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.blockhound.BlockHound;
import reactor.blockhound.BlockingMethod;
import reactor.blockhound.BlockingOperationError;
import reactor.core.scheduler.Schedulers;

/**
 * Installs BlockHound for the reactive tests (a JVM of their own, given the flag it
 * needs: {@code autoconfigure/tests-apart}, the gateway's {@code reactive} execution):
 * any blocking call on a non-blocking thread (Reactor's parallel scheduler, Netty's and
 * so Lettuce's event loops) fails the call that made it, but for the wait on Lettuce's
 * short writer lock.
 */
public final class NonBlockingThreads {

	private static final boolean INSTRUMENTABLE = ManagementFactory.getRuntimeMXBean()
		.getInputArguments()
		.contains("-XX:+AllowRedefinitionToAddDeleteMethods");

	private static final AtomicBoolean INSTALLED = new AtomicBoolean();

	private static final Logger LOGGER = LoggerFactory.getLogger(NonBlockingThreads.class);

	private NonBlockingThreads() {
	}

	private static void install() {
		// Lettuce's writer lock (SharedLock, Lettuce 7.5): every write to a shared
		// connection takes its ReentrantLock for a counter increment, so writers on
		// several threads park for each other's increment, and longer only while a
		// connect or disconnect holds the endpoint exclusively, which waits for the
		// writes in flight (non-blocking channel writes) and moves queued commands,
		// never for I/O. An error thrown there is worse than the wait:
		// DefaultEndpoint.write decrements the writer count in a finally, leaving it
		// negative, and every later write to that connection spins forever.
		// The exclusive side (doExclusive: a connect, a disconnect, draining queued
		// commands, on the event loop) waits on the same lock for those increments: an
		// error there would leave the connection half-activated instead.
		// A scheduled task's removal on cancel (a lease renewer or a lock watch stopped
		// when a publisher ends, a timeout cancelled when its answer came) takes the
		// delay queue's lock for a heap removal: the same short lock as offer and take,
		// which Reactor's own integration allows.
		// Netty 4.2's default buffer allocator grows its set of magazines under a
		// StampedLock held for a few instructions (no I/O), which Netty's own integration
		// does not list: an error there, as a channel registered, left a Lettuce
		// connection's handshake unstarted (it timed out a minute later) and the HTTP
		// requests waiting on it unanswered.
		// Lettuce's cluster connection caches the connection of each slot under its state
		// lock (PooledClusterConnectionProvider, Lettuce 7.5: an array store, in the
		// lambdas completing getWriteConnection and getReadConnection): concurrent
		// commands to a slot whose connection was just made park on each other there.
		// A thread pool starting a worker (Redkit's hand-off, whose idle workers end
		// after
		// 30 s) records it under the pool's main lock, held for that bookkeeping only:
		// concurrent callers on event loops park on each other there for microseconds.
		// The same state lock is taken when a node connection a cluster connection asked
		// for is ready (NodeConnectionPostProcessor, on the event loop that completed its
		// handshake): an error there failed that node connection's future and left the
		// connection open outside the provider.
		// Closing a cluster connection (Lettuce 7.5) ends, on the event loop that closed
		// its channel, in a close listener that calls the node connection provider's
		// blocking close (PooledClusterConnectionProvider.close: closeAsync().join()),
		// which waits for the node connections still closing. An error there escapes the
		// listener before the connection's close future is completed: whoever closes it
		// (a pool destroying its idle connections when the factory stops) then waits
		// forever, with every event loop idle.
		BlockHound.install((builder) -> builder
			.allowBlockingCallsInside("java.util.concurrent.ThreadPoolExecutor", "addWorker")
			.allowBlockingCallsInside("io.lettuce.core.protocol.SharedLock", "incrementWriters")
			.allowBlockingCallsInside("io.lettuce.core.protocol.SharedLock", "doExclusive")
			.allowBlockingCallsInside("java.util.concurrent.ScheduledThreadPoolExecutor$DelayedWorkQueue", "remove")
			.allowBlockingCallsInside("io.netty.buffer.AdaptivePoolingAllocator$MagazineGroup", "tryExpandMagazines")
			.allowBlockingCallsInside("io.lettuce.core.cluster.PooledClusterConnectionProvider",
					"lambda$getWriteConnection$1")
			.allowBlockingCallsInside("io.lettuce.core.cluster.PooledClusterConnectionProvider", "getReadConnection")
			.allowBlockingCallsInside("io.lettuce.core.cluster.PooledClusterConnectionProvider",
					"lambda$getReadConnection$5")
			.allowBlockingCallsInside(
					"io.lettuce.core.cluster.PooledClusterConnectionProvider$NodeConnectionPostProcessor",
					"lambda$apply$4")
			.allowBlockingCallsInside("io.lettuce.core.cluster.PooledClusterConnectionProvider", "close")
			.blockingMethodCallback(NonBlockingThreads::fail));
		// a check that it is really on: a test that passes because nothing watches proves
		// nothing
		CompletableFuture<Throwable> caught = new CompletableFuture<>();
		Schedulers.parallel().schedule(() -> {
			try {
				Thread.sleep(1);
				caught.complete(new AssertionError("BlockHound let a sleep on a parallel thread through"));
			}
			catch (Throwable ex) {
				caught.complete(ex);
			}
		});
		Throwable answer;
		try {
			answer = caught.get(10, TimeUnit.SECONDS);
		}
		catch (Exception ex) {
			throw new AssertionError("BlockHound's self-check did not answer", ex);
		}
		if (!(answer instanceof BlockingOperationError)) {
			throw new AssertionError("BlockHound is not watching", answer);
		}
	}

	private static void fail(BlockingMethod method) {
		BlockingOperationError error = new BlockingOperationError(method);
		// a library that catches the error (and leaves a connection or a request stuck)
		// would hide it: every detection is in the test's output
		LOGGER.error("Blocking call on a non-blocking thread", error);
		throw error;
	}

	/**
	 * Installs BlockHound and checks that it watches, or skips the test in a JVM where it
	 * cannot (a {@code -Dtest=...} run also reaches a module's default execution; the
	 * library's tests keep such classes out of it: {@code TestsApartTests}).
	 */
	public static void watch() {
		Assumptions.assumeTrue(INSTRUMENTABLE,
				"BlockHound needs -XX:+AllowRedefinitionToAddDeleteMethods: the reactive tests run in a JVM given it "
						+ "(autoconfigure/tests-apart; in the gateway, its 'reactive' execution runs the classes "
						+ "tagged blockhound)");
		// not in a static initializer: the check's task runs this class's code on another
		// thread, which would wait for the initialization it is part of
		if (INSTALLED.compareAndSet(false, true)) {
			install();
		}
	}

}
