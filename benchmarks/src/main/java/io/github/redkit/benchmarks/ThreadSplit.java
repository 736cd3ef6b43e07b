package io.github.redkit.benchmarks;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * The CPU time and context switches of this JVM's threads, split by what the threads are
 * (the server's, the carriers of virtual threads, Lettuce's event loops, Redkit's, the
 * JIT's, the collector's, the rest), read from Linux's {@code /proc/self/task}: where a
 * request's CPU goes, which the process total of {@link JvmCost} does not say. CPU is
 * counted in the kernel's clock ticks (usually 10 ms) per thread, enough over a run of
 * thousands of requests; a thread that ended in between is not counted. Elsewhere than on
 * Linux every figure is zero.
 */
final class ThreadSplit {

	private static final Path TASKS = Path.of("/proc/self/task");

	private static final double MICROS_PER_TICK = 10_000;

	/**
	 * What a thread is, by its name (Linux keeps its first 15 characters).
	 */
	enum Kind {

		SERVER("server"), CARRIERS("carriers"), LETTUCE("lettuce"), REDKIT("redkit"), JIT("jit"), GC("gc"),
		OTHER("other");

		private final String label;

		Kind(String label) {
			this.label = label;
		}

		static Kind of(String name) {
			if (name.startsWith("http-nio") || name.startsWith("reactor-http")) {
				return SERVER;
			}
			// a virtual thread's scheduler (spring.threads.virtual.enabled): its requests
			// run on these
			if (name.startsWith("ForkJoinPool-")) {
				return CARRIERS;
			}
			if (name.startsWith("lettuce")) {
				return LETTUCE;
			}
			if (name.startsWith("redkit")) {
				return REDKIT;
			}
			if (name.startsWith("C1 Compiler") || name.startsWith("C2 Compiler")) {
				return JIT;
			}
			if (name.startsWith("GC Thread") || name.startsWith("G1 ") || name.equals("VM Thread")) {
				return GC;
			}
			return OTHER;
		}

	}

	/**
	 * One thread's counters.
	 *
	 * @param kind what it is
	 * @param ticks user and system CPU time, in clock ticks
	 * @param voluntary the times it gave up the CPU (a park, a wait for I/O)
	 * @param involuntary the times the scheduler took the CPU from it
	 */
	record Counters(Kind kind, long ticks, long voluntary, long involuntary) {

	}

	private final Map<String, Counters> threads;

	private ThreadSplit(Map<String, Counters> threads) {
		this.threads = threads;
	}

	static ThreadSplit now() {
		Map<String, Counters> threads = new HashMap<>();
		if (Files.isDirectory(TASKS)) {
			try (DirectoryStream<Path> tasks = Files.newDirectoryStream(TASKS)) {
				for (Path task : tasks) {
					Counters counters = read(task);
					if (counters != null) {
						threads.put(task.getFileName().toString(), counters);
					}
				}
			}
			catch (IOException ex) {
				// no split: the figures stay zero
			}
		}
		return new ThreadSplit(threads);
	}

	private static @Nullable Counters read(Path task) {
		try {
			String stat = Files.readString(task.resolve("stat"));
			// the name is in brackets and may hold spaces: the fields follow the last one
			String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
			String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
			// utime and stime are the 14th and 15th fields, the 12th and 13th after the
			// name
			long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
			long voluntary = 0;
			long involuntary = 0;
			List<String> status = Files.readAllLines(task.resolve("status"));
			for (String line : status) {
				if (line.startsWith("voluntary_ctxt_switches:")) {
					voluntary = Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
				}
				else if (line.startsWith("nonvoluntary_ctxt_switches:")) {
					involuntary = Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
				}
			}
			return new Counters(Kind.of(name), ticks, voluntary, involuntary);
		}
		catch (IOException | RuntimeException ex) {
			// the thread ended while it was read
			return null;
		}
	}

	/**
	 * What each kind of thread spent since an earlier snapshot.
	 * @param earlier the earlier snapshot
	 * @return the sums per kind
	 */
	Map<Kind, Counters> since(ThreadSplit earlier) {
		long[][] sums = new long[Kind.values().length][3];
		this.threads.forEach((tid, now) -> {
			Counters before = earlier.threads.get(tid);
			long[] sum = sums[now.kind().ordinal()];
			sum[0] += now.ticks() - ((before != null) ? before.ticks() : 0);
			sum[1] += now.voluntary() - ((before != null) ? before.voluntary() : 0);
			sum[2] += now.involuntary() - ((before != null) ? before.involuntary() : 0);
		});
		Map<Kind, Counters> split = new EnumMap<>(Kind.class);
		for (Kind kind : Kind.values()) {
			long[] sum = sums[kind.ordinal()];
			split.put(kind, new Counters(kind, sum[0], sum[1], sum[2]));
		}
		return split;
	}

	/**
	 * A one-line account per request: CPU µs and context switches (voluntary +
	 * involuntary) of each kind of thread.
	 * @param split what {@link #since} returned
	 * @param requests the requests served meanwhile
	 * @return the line
	 */
	static String describe(Map<Kind, Counters> split, long requests) {
		StringBuilder line = new StringBuilder("CPU us/req");
		long voluntary = 0;
		long involuntary = 0;
		for (Counters counters : split.values()) {
			line.append(String.format(Locale.ROOT, " %s %.1f", counters.kind().label,
					counters.ticks() * MICROS_PER_TICK / requests));
			voluntary += counters.voluntary();
			involuntary += counters.involuntary();
		}
		line.append(String.format(Locale.ROOT, "; switches/req %.2f+%.2f", (double) voluntary / requests,
				(double) involuntary / requests));
		for (Counters counters : split.values()) {
			if (counters.voluntary() + counters.involuntary() > 0) {
				line.append(String.format(Locale.ROOT, " %s %.2f+%.2f", counters.kind().label,
						(double) counters.voluntary() / requests, (double) counters.involuntary() / requests));
			}
		}
		return line.toString();
	}

}
