package io.github.redkit.core;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * Logs every thread's stack when a test fails: a reactive chain that never completes
 * leaves no stack of its own, only the threads that should have completed it.
 */
public final class ThreadDumpOnFailure implements TestWatcher {

	private static final Log logger = LogFactory.getLog(ThreadDumpOnFailure.class);

	@Override
	public void testFailed(ExtensionContext context, Throwable cause) {
		StringBuilder dump = new StringBuilder("Threads when " + context.getDisplayName() + " failed:\n");
		for (ThreadInfo thread : ManagementFactory.getThreadMXBean().dumpAllThreads(true, true)) {
			dump.append('"').append(thread.getThreadName()).append("\" ").append(thread.getThreadState()).append('\n');
			for (StackTraceElement frame : thread.getStackTrace()) {
				dump.append("    at ").append(frame).append('\n');
			}
		}
		logger.error(dump);
	}

}
