package io.github.redkit.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

/**
 * Where a request's bytes go, per allocation site: one round of requests per path under a
 * flight recording that samples every allocation ({@code jdk.ObjectAllocationSample},
 * unthrottled), each path's objects summed by site (the class and the innermost frames)
 * per request, minus the plain path's at the same site. Exact only in a JVM without TLABs
 * ({@code -XX:+UseG1GC -XX:-UseTLAB}): then every object takes the slow path and is
 * sampled at its own size. Run by {@link RequestAllocationTests} when the system property
 * {@value #PROPERTY} is set (the number of requests per path).
 */
final class AllocationSites {

	/** The system property that asks for the table: the requests per path. */
	static final String PROPERTY = "redkit.allocation.sites";

	private static final int FRAMES = 7;

	private static final double SHOWN_ABOVE = 8;

	private AllocationSites() {
	}

	/**
	 * Prints each limited path's bytes per request by site, minus the plain path's.
	 * @param server the server, for the printout
	 * @param paths the plain path first, then the limited ones
	 * @param requests sends this many requests to a path on the calling thread
	 */
	static void print(HttpServerKind server, List<String> paths, int requests, PathRequests send) {
		Map<String, Instant[]> spans = new LinkedHashMap<>();
		Path file;
		try (Recording recording = new Recording()) {
			recording.enable("jdk.ObjectAllocationSample").with("throttle", "off").withStackTrace();
			recording.start();
			for (String path : paths) {
				Instant start = Instant.now();
				send.send(path, requests);
				spans.put(path, new Instant[] { start, Instant.now() });
			}
			recording.stop();
			file = Files.createTempFile("allocation-sites", ".jfr");
			recording.dump(file);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		long self = Thread.currentThread().getId();
		Map<String, Map<String, Double>> bytes = new HashMap<>();
		try {
			for (RecordedEvent event : RecordingFile.readAllEvents(file)) {
				if (event.getThread("eventThread") != null
						&& event.getThread("eventThread").getJavaThreadId() == self) {
					continue;
				}
				String path = pathAt(spans, event.getStartTime());
				if (path != null) {
					bytes.computeIfAbsent(path, (p) -> new HashMap<>())
						.merge(site(event), (double) event.getLong("weight") / requests, Double::sum);
				}
			}
			Files.deleteIfExists(file);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		Map<String, Double> plain = bytes.getOrDefault(paths.get(0), Map.of());
		for (String path : paths.subList(1, paths.size())) {
			Map<String, Double> added = new HashMap<>(bytes.getOrDefault(path, Map.of()));
			plain.forEach((site, value) -> added.merge(site, -value, Double::sum));
			// no total: a thread's first sample in the recording also weighs what it
			// allocated before, so a few sites of idle threads show large one-off values
			// (the rounds' totals are exact)
			System.out.printf("%s %s: bytes added per request, by site (above %.0f B):%n", server, path, SHOWN_ABOVE);
			added.entrySet()
				.stream()
				.filter((entry) -> Math.abs(entry.getValue()) > SHOWN_ABOVE)
				.sorted(Map.Entry.<String, Double>comparingByValue().reversed())
				.forEach((entry) -> System.out.printf("  %,8.0f B  %s%n", entry.getValue(), entry.getKey()));
		}
	}

	private static String pathAt(Map<String, Instant[]> spans, Instant time) {
		for (Map.Entry<String, Instant[]> span : spans.entrySet()) {
			if (!time.isBefore(span.getValue()[0]) && !time.isAfter(span.getValue()[1])) {
				return span.getKey();
			}
		}
		return null;
	}

	private static String site(RecordedEvent event) {
		String type = event.getClass("objectClass").getName();
		if (event.getStackTrace() == null) {
			return type;
		}
		return type + " <- "
				+ event.getStackTrace()
					.getFrames()
					.stream()
					.limit(FRAMES)
					.map(AllocationSites::frame)
					.collect(Collectors.joining(" <- "));
	}

	private static String frame(RecordedFrame frame) {
		String type = frame.getMethod().getType().getName();
		return type.substring(type.lastIndexOf('.') + 1) + "." + frame.getMethod().getName() + ":"
				+ frame.getLineNumber();
	}

	/** Sends requests to a path. */
	@FunctionalInterface
	interface PathRequests {

		/**
		 * Sends requests one after the other.
		 * @param path the path
		 * @param requests how many
		 */
		void send(String path, int requests);

	}

}
