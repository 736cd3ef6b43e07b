package io.github.redkit.core.internal;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedTransferQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import org.springframework.core.task.VirtualThreadTaskExecutor;

/**
 * The one way Redkit makes its own threads (queue consumers, the lock watchdog, lease
 * renewals, control-state acknowledgements, the background connect, the hand-off of
 * scripts): platform threads, or virtual threads once {@link #useVirtualThreads(boolean)}
 * is on, which the auto-configuration does when Spring Boot's
 * {@code spring.threads.virtual.enabled} is active (Java 21 and later), as Boot does for
 * its own executors. The choice is read each time a thread is made, so threads made
 * before it keep their kind.
 */
public final class RedkitThreads {

	private static volatile boolean virtual;

	private static volatile @Nullable ThreadFactory virtualThreads;

	private RedkitThreads() {
	}

	/**
	 * Makes the threads made from now on virtual threads, or platform threads again.
	 * @param useVirtualThreads whether to make virtual threads; needs Java 21 or later
	 */
	public static void useVirtualThreads(boolean useVirtualThreads) {
		if (useVirtualThreads && virtualThreads == null) {
			// throws on a runtime without virtual threads
			virtualThreads = new VirtualThreadTaskExecutor("redkit-").getVirtualThreadFactory();
		}
		virtual = useVirtualThreads;
	}

	/**
	 * Whether new threads are virtual threads.
	 * @return {@code true} when they are
	 */
	public static boolean virtual() {
		return virtual;
	}

	/**
	 * A factory of threads that all carry one name; platform threads are daemons.
	 * @param name the threads' name
	 * @return the factory
	 */
	public static ThreadFactory factory(String name) {
		return (task) -> newThread(name, task, true);
	}

	/**
	 * An executor of at most {@code threads} threads, made as needed and ended after a
	 * while idle. Tasks beyond them wait in an unbounded queue that takes them without a
	 * lock, so that handing one over never blocks the caller, an event loop included.
	 * @param factory the factory of its threads
	 * @param threads how many threads at most
	 * @return the executor
	 */
	public static ExecutorService bounded(ThreadFactory factory, int threads) {
		ThreadPoolExecutor executor = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS,
				new LinkedTransferQueue<>(), factory);
		executor.allowCoreThreadTimeOut(true);
		return executor;
	}

	/**
	 * A new, unstarted thread.
	 * @param name its name
	 * @param task what it runs
	 * @param daemon whether a platform thread is a daemon (a virtual thread always is)
	 * @return the thread
	 */
	public static Thread newThread(String name, Runnable task, boolean daemon) {
		ThreadFactory factory = virtualThreads;
		if (virtual && factory != null) {
			Thread thread = factory.newThread(task);
			thread.setName(name);
			return thread;
		}
		Thread thread = new Thread(task, name);
		thread.setDaemon(daemon);
		return thread;
	}

}
