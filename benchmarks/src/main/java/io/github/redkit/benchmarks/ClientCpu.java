package io.github.redkit.benchmarks;

import java.lang.management.ManagementFactory;

import com.sun.management.OperatingSystemMXBean;

/**
 * The CPU time this process has used: what the clients cost the machine they run on,
 * which a shared machine's load inflates much less than their throughput (a thread
 * waiting for a core uses none).
 */
final class ClientCpu {

	private static final OperatingSystemMXBean OS = (OperatingSystemMXBean) ManagementFactory
		.getOperatingSystemMXBean();

	private ClientCpu() {
	}

	/**
	 * The CPU time used so far by every thread of this process.
	 * @return the nanoseconds
	 */
	static long nanos() {
		return OS.getProcessCpuTime();
	}

}
