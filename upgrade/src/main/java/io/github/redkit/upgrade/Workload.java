package io.github.redkit.upgrade;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.cache.annotation.EnableCaching;
import org.springframework.context.annotation.Bean;

/**
 * The fleet's JVM of one version: it hosts that version's instances (each a Spring Boot
 * application of its own, with its own connections and beans), started and stopped on
 * commands read from standard input, one a line: {@code start <argument>...},
 * {@code stop <instance>}, {@code last <instance>} (it also drains the queue and reads
 * the final balances). Its input ending stops what still runs.
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration
@EnableCaching
public class Workload {

	@Bean
	CachedValues cachedValues() {
		return new CachedValues();
	}

	private static final Log logger = LogFactory.getLog(Workload.class);

	public static void main(String[] args) throws Exception {
		Map<String, WorkloadInstance> running = new ConcurrentHashMap<>();
		List<Thread> stopping = new ArrayList<>();
		BufferedReader input = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
		String line;
		while ((line = input.readLine()) != null) {
			List<String> words = Arrays.asList(line.trim().split(" "));
			if (words.get(0).equals("start")) {
				// one after the other: Spring Boot sets its logging system up per
				// application, and two starting at once trip over each other
				WorkloadInstance instance = WorkloadInstance.start(words.subList(1, words.size()));
				if (instance != null) {
					running.put(instance.name(), instance);
				}
			}
			else if (words.get(0).equals("stop") || words.get(0).equals("last")) {
				WorkloadInstance instance = running.remove(words.get(1));
				if (instance == null) {
					logger.error("No instance " + words.get(1) + " runs here");
					continue;
				}
				// the instances of a fleet stop at once: the last of each region
				// reads the final balances once every region's changes stopped
				boolean last = words.get(0).equals("last");
				Thread thread = new Thread(() -> instance.stop(last), "stop-" + instance.name());
				stopping.add(thread);
				thread.start();
			}
		}
		running.values().forEach((instance) -> instance.stop(false));
		for (Thread thread : stopping) {
			thread.join();
		}
		// every application is closed: no thread of a library may keep the JVM alive
		System.exit(0);
	}

}
