package io.github.redkit.benchmarks;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The {@code http} suite still runs: every endpoint on both servers for one second of
 * {@code wrk} in one round, then its table and charts. The numbers are not judged (a
 * second on a shared machine measures nothing), only that every row was measured, every
 * request answered with 2xx, and Redkit's rows reached Redis while the plain one did not.
 */
class HttpBenchmarkTests {

	// a condition, so that no server starts where wrk is missing
	@Test
	@EnabledIf(value = "wrkInstalled",
			disabledReason = "wrk is not installed (Debian: apt-get install wrk; .ci/run installs it)")
	void aTinyTableOnBothServersIsMeasuredAndCharted(@TempDir Path charts, @PrivateRedis RedisServer redis) {
		// 1 s saturated and 1 s below saturation per row, one round; every endpoint of
		// each
		// server is called once before the rounds, so all of them must still answer
		HttpBenchmark benchmark = new HttpBenchmark(Duration.ZERO, Duration.ofSeconds(1), Duration.ofSeconds(1), 1, 8,
				2, 10);
		List<HttpResult> results = benchmark.run(redis, HttpServerKind.named(List.of()),
				HttpEndpoint.named(List.of("limit1")));
		assertThat(results).extracting((result) -> result.server() + " " + result.endpoint())
			.containsExactly("TOMCAT PLAIN", "TOMCAT LIMIT_1", "NETTY PLAIN", "NETTY LIMIT_1");
		assertThat(results).allSatisfy((result) -> {
			assertThat(result.failed()).as(result.toString()).isZero();
			assertThat(result.requestsPerSecond().median()).as(result.toString()).isPositive();
			assertThat(result.pacedP99Micros()).as(result.toString()).isPositive();
			assertThat(result.allocatedBytesPerRequest()).as(result.toString()).isPositive();
			assertThat(result.jvmCpuMicrosPerRequest()).as(result.toString()).isPositive();
		});
		// the plain endpoint never reaches Redis; one rate limit is one round trip
		assertThat(results).filteredOn((result) -> result.endpoint() == HttpEndpoint.PLAIN)
			.allSatisfy((result) -> assertThat(result.roundTripsPerRequest()).isZero());
		assertThat(results).filteredOn((result) -> result.endpoint() == HttpEndpoint.LIMIT_1)
			.allSatisfy((result) -> assertThat(result.roundTripsPerRequest()).isBetween(1.0, 1.1));
		String table = HttpResults.markdown(results);
		assertThat(table.lines()).hasSize(2 + results.size());
		assertThat(table).contains("| Tomcat (Spring MVC) | plain").contains("| Netty (WebFlux) | @RateLimited");
		assertThat(Charts.writeHttp(charts, results)).hasSize(2)
			.allSatisfy((chart) -> assertThat(chart).isNotEmptyFile());
	}

	@Test
	void badOptionsAreRefusedNamingTheOption() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new HttpBenchmark(Duration.ZERO, Duration.ofMillis(500), Duration.ZERO, 1, 8, 2, 10))
			.withMessageContaining("--duration");
		assertThatIllegalArgumentException().isThrownBy(() -> HttpEndpoint.named(List.of("nope")))
			.withMessageContaining("--endpoints");
		assertThatIllegalArgumentException().isThrownBy(() -> HttpServerKind.named(List.of("jetty")))
			.withMessageContaining("--servers");
	}

	static boolean wrkInstalled() {
		String path = System.getenv("PATH");
		boolean found = false;
		if (path != null) {
			for (String directory : path.split(File.pathSeparator)) {
				found |= Files.isExecutable(Path.of(directory, "wrk"));
			}
		}
		return found;
	}

}
