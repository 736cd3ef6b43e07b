package io.github.redkit.sample;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The unit tests of the alerting rules ({@code docs/prometheus/redkit-alerts-tests.yml})
 * under {@code promtool test rules}: every alert of {@code redkit-alerts.yml} has a case
 * for a fresh start, a stale gap (one failed scrape), a restart and a real increase, and
 * only the real increase fires.
 */
class AlertRulesTests {

	private static final List<String> SCENARIOS = List.of("fresh start", "stale gap", "restart", "real increase");

	private static final Pattern ALERT = Pattern.compile("^\\s*- alert: (\\S+)$", Pattern.MULTILINE);

	private static final Pattern TEST = Pattern.compile("^\\s*- name: \"(\\w+): ([\\w ]+)", Pattern.MULTILINE);

	@BeforeEach
	void needsPromtool() {
		Prometheus.assumeInstalled();
	}

	@Test
	void everyAlertPassesItsUnitTestsAndHasEveryScenario() throws Exception {
		Path rules = SamplePrometheusTests.docs().resolve("prometheus/redkit-alerts.yml");
		Path tests = rules.resolveSibling("redkit-alerts-tests.yml");
		Set<String> alerts = new TreeSet<>();
		Matcher alert = ALERT.matcher(Files.readString(rules));
		while (alert.find()) {
			alerts.add(alert.group(1));
		}
		assertThat(alerts).hasSizeGreaterThan(10);
		Set<String> cases = new TreeSet<>();
		Matcher test = TEST.matcher(Files.readString(tests));
		while (test.find()) {
			cases.add(test.group(1) + ": " + test.group(2).trim());
		}
		for (String name : alerts) {
			for (String scenario : SCENARIOS) {
				assertThat(cases).as("the cases of %s", name).contains(name + ": " + scenario);
			}
		}
		Prometheus.testRules(tests);
	}

}
