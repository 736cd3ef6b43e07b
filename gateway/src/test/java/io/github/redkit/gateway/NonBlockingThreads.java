package io.github.redkit.gateway;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Assumptions;
import reactor.blockhound.BlockHound;
import reactor.blockhound.BlockingOperationError;
import reactor.core.scheduler.Schedulers;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Installs BlockHound for the reactive tests (their own surefire execution, see the
 * module's pom): any blocking call on a non-blocking thread (Reactor's parallel
 * scheduler, Netty's and so Lettuce's event loops) fails the call that made it.
 */
public final class NonBlockingThreads {

	private static final boolean INSTRUMENTABLE = ManagementFactory.getRuntimeMXBean()
		.getInputArguments()
		.contains("-XX:+AllowRedefinitionToAddDeleteMethods");

	private static final AtomicBoolean INSTALLED = new AtomicBoolean();

	private NonBlockingThreads() {
	}

	private static void install() {
		BlockHound.install();
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
		assertThat(caught).succeedsWithin(Duration.ofSeconds(10)).isInstanceOf(BlockingOperationError.class);
	}

	/**
	 * Installs BlockHound and checks that it watches, or skips the test in a JVM where it
	 * cannot (a {@code -Dtest=...} run also reaches the module's default execution).
	 */
	public static void watch() {
		Assumptions.assumeTrue(INSTRUMENTABLE,
				"BlockHound needs -XX:+AllowRedefinitionToAddDeleteMethods: the reactive tests run in the "
						+ "'reactive' surefire execution");
		// not in a static initializer: the check's task runs this class's code on another
		// thread, which would wait for the initialization it is part of
		if (INSTALLED.compareAndSet(false, true)) {
			install();
		}
	}

}
