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
import org.assertj.core.api.InstanceOfAssertFactories;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The {@code http} suite still runs: every endpoint on both servers for one second of
 * {@code wrk} in one round, two passes of a second below saturation, then its tables and
 * charts. The numbers are not judged (a second on a shared machine measures nothing),
 * only that every row was measured, every request answered with 2xx, Redkit's rows
 * reached Redis while the plain one did not, and the times the server took of itself are
 * there and consistent with {@code wrk}'s.
 */
class HttpBenchmarkTests {

	// a condition, so that no server starts where wrk is missing
	@Test
	@EnabledIf(value = "wrkInstalled",
			disabledReason = "wrk is not installed (Debian: apt-get install wrk; .ci/run installs it)")
	void aTinyTableOnBothServersIsMeasuredAndCharted(@TempDir Path charts, @PrivateRedis RedisServer redis) {
		// 1 s saturated per row, then 2 passes of 1 s below saturation, one round;
		// every endpoint of each server is called once before the rounds, so all of
		// them must still answer
		HttpBenchmark benchmark = new HttpBenchmark(Duration.ZERO, Duration.ofSeconds(1), Duration.ofSeconds(1), 2, 1,
				8, 2, 10);
		HttpBenchmark.Measured measured = benchmark.run(redis, HttpServerKind.named(List.of()),
				HttpEndpoint.named(List.of("limit1")));
		List<HttpResult> results = measured.saturated();
		assertThat(results).extracting((result) -> result.server() + " " + result.endpoint())
			.containsExactly("TOMCAT PLAIN", "TOMCAT LIMIT_1", "NETTY PLAIN", "NETTY LIMIT_1");
		assertThat(results).allSatisfy((result) -> {
			assertThat(result.failed()).as(result.toString()).isZero();
			assertThat(result.requestsPerSecond().median()).as(result.toString()).isPositive();
			assertThat(result.allocatedBytesPerRequest()).as(result.toString()).isPositive();
			assertThat(result.jvmCpuMicrosPerRequest()).as(result.toString()).isPositive();
		});
		assertBelowSaturation(measured.paced());
		// the plain endpoint never reaches Redis; one rate limit is one round trip
		assertThat(results).filteredOn((result) -> result.endpoint() == HttpEndpoint.PLAIN)
			.allSatisfy((result) -> assertThat(result.roundTripsPerRequest()).isZero());
		assertThat(results).filteredOn((result) -> result.endpoint() == HttpEndpoint.LIMIT_1)
			.allSatisfy((result) -> assertThat(result.roundTripsPerRequest()).isBetween(1.0, 1.1));
		String table = HttpResults.markdown(results);
		assertThat(table.lines()).hasSize(2 + results.size());
		assertThat(table).contains("| Tomcat (Spring MVC) | plain").contains("| Netty (WebFlux) | @RateLimited");
		String paced = HttpPacedResults.markdown(measured.paced());
		assertThat(paced.lines()).hasSize(2 + measured.paced().size());
		assertThat(paced.lines().findFirst()).get(InstanceOfAssertFactories.STRING)
			.contains("| in server p99 ms |", "| Redis round trip p50 / p99 ms |");
		assertThat(Charts.writeHttp(charts, results)).hasSize(2)
			.allSatisfy((chart) -> assertThat(chart).isNotEmptyFile());
	}

	// what the server timed inside itself is there and consistent: a method's time is
	// inside its request's, and a rate-limited method's holds its Redis round trip, so
	// their percentiles are ordered too; against wrk's only the median (the server's
	// clock
	// stops after the flush, and at load a thread preempted there stops it after the
	// client had its answer: seen, a p99 in the server above wrk's)
	private static void assertBelowSaturation(List<HttpPacedResult> paced) {
		assertThat(paced).extracting((result) -> result.server() + " " + result.endpoint())
			.containsExactly("TOMCAT PLAIN", "TOMCAT LIMIT_1", "NETTY PLAIN", "NETTY LIMIT_1");
		assertThat(paced).allSatisfy((result) -> {
			assertThat(result.failed()).as(result.toString()).isZero();
			assertThat(result.slices()).as(result.toString()).isEqualTo(2);
			assertThat(result.wrkP99Micros().median()).as(result.toString()).isPositive();
			assertThat(result.serviceP50Micros()).as(result.toString())
				.isPositive()
				.isLessThanOrEqualTo(result.serviceP99Micros())
				.isLessThanOrEqualTo(result.wrkP99Micros().max());
			assertThat(result.serviceP99Micros()).as(result.toString()).isLessThanOrEqualTo(result.serviceP999Micros());
			assertThat(result.advisedP50Micros()).as(result.toString())
				.isPositive()
				.isLessThanOrEqualTo(result.serviceP50Micros() * 1.01);
		});
		assertThat(paced).filteredOn((result) -> result.endpoint() == HttpEndpoint.PLAIN)
			.allSatisfy((result) -> assertThat(result.redisRoundTripP50Micros()).as(result.toString()).isNaN());
		assertThat(paced).filteredOn((result) -> result.endpoint() == HttpEndpoint.LIMIT_1)
			.allSatisfy((result) -> assertThat(result.advisedP50Micros()).as(result.toString())
				.isPositive()
				.isGreaterThanOrEqualTo(result.redisRoundTripP50Micros() * 0.99));
	}

	@Test
	void badOptionsAreRefusedNamingTheOption() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new HttpBenchmark(Duration.ZERO, Duration.ofMillis(500), Duration.ZERO, 1, 1, 8, 2, 10))
			.withMessageContaining("--duration");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new HttpBenchmark(Duration.ZERO, Duration.ofSeconds(1), Duration.ZERO, 0, 1, 8, 2, 10))
			.withMessageContaining("--paced-slices");
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
