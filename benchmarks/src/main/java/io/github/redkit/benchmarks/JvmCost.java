package io.github.redkit.benchmarks;

import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.Map;

import com.sun.management.OperatingSystemMXBean;
import com.sun.management.ThreadMXBean;

/**
 * What this JVM has spent so far: its CPU time and the bytes its threads allocated
 * ({@link ThreadMXBean#getThreadAllocatedBytes(long[])}, per thread, since Java 17 has no
 * total). With the application under test in this process and its load generator outside,
 * the difference between two snapshots is what serving the requests cost: the server's
 * threads, Lettuce's event loops, GC and JIT included.
 */
final class JvmCost {

	private static final OperatingSystemMXBean OS = (OperatingSystemMXBean) ManagementFactory
		.getOperatingSystemMXBean();

	private static final ThreadMXBean THREADS = (ThreadMXBean) ManagementFactory.getThreadMXBean();

	private final long cpuNanos;

	private final Map<Long, Long> allocated;

	private JvmCost(long cpuNanos, Map<Long, Long> allocated) {
		this.cpuNanos = cpuNanos;
		this.allocated = allocated;
	}

	static JvmCost now() {
		long[] ids = THREADS.getAllThreadIds();
		long[] bytes = THREADS.getThreadAllocatedBytes(ids);
		Map<Long, Long> allocated = new HashMap<>();
		for (int i = 0; i < ids.length; i++) {
			if (bytes[i] >= 0) {
				allocated.put(ids[i], bytes[i]);
			}
		}
		return new JvmCost(OS.getProcessCpuTime(), allocated);
	}

	/**
	 * The CPU time used since an earlier snapshot.
	 * @param earlier the earlier snapshot
	 * @return the nanoseconds
	 */
	long cpuNanosSince(JvmCost earlier) {
		return this.cpuNanos - earlier.cpuNanos;
	}

	/**
	 * The bytes allocated since an earlier snapshot by the threads alive now (a thread
	 * that ended in between is not counted: the server's threads live as long as it
	 * does).
	 * @param earlier the earlier snapshot
	 * @return the bytes
	 */
	long allocatedSince(JvmCost earlier) {
		return allocatedSince(earlier, -1);
	}

	/**
	 * The bytes allocated since an earlier snapshot by the threads alive now but one (a
	 * load generator's in this JVM, whose own allocation is not the server's cost).
	 * @param earlier the earlier snapshot
	 * @param exceptThread the id of the thread left out
	 * @return the bytes
	 */
	long allocatedSince(JvmCost earlier, long exceptThread) {
		long total = 0;
		for (Map.Entry<Long, Long> thread : this.allocated.entrySet()) {
			if (thread.getKey() != exceptThread) {
				total += thread.getValue() - earlier.allocated.getOrDefault(thread.getKey(), 0L);
			}
		}
		return total;
	}

}
