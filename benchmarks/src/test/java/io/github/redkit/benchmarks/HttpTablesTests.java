package io.github.redkit.benchmarks;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The HTTP benchmark's two Markdown tables, as {@code docs/benchmarks.md} keeps them:
 * every column and cell of a reference row and of a measured one, to the character.
 */
class HttpTablesTests {

	@Test
	void theSaturatedTableShowsEveryColumnOfTheReferenceAndOfAMeasuredRow() {
		HttpResult plain = new HttpResult(HttpServerKind.TOMCAT, HttpEndpoint.PLAIN, 3,
				new HttpResult.Spread(10_000, 9_000, 11_000), new HttpResult.Spread(1, 1, 1), 1500, 4250, 0, 0, 0,
				120.4, 0, 20_480, 0, 0);
		HttpResult limited = new HttpResult(HttpServerKind.NETTY, HttpEndpoint.LIMIT_1, 3,
				new HttpResult.Spread(8_000, 7_500.4, 8_500.6), new HttpResult.Spread(0.8, 0.75, 0.85), 2000, 5120, 2.5,
				1.02, 12.34, 150.6, 30.2, 25_600, 5_120, 2);
		assertThat(HttpResults.markdown(List.of(plain, limited))).isEqualTo("""
				| server | endpoint | requests/s median (min–max) | × plain median (min–max) | p50 ms | p99 ms \
				| Redis commands/request | round trips/request | Redis CPU µs/request | JVM CPU µs/request \
				| JVM CPU added µs/request | allocated KB/request | allocated added KB/request | failed |
				|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|
				| Tomcat (Spring MVC) | plain (no Redkit; reference) | 10,000 (9,000–11,000) | 1.00 | 1.50 | 4.25 \
				| 0.00 | 0.00 | 0.0 | 120 | – | 20.0 | – | 0 |
				| Netty (WebFlux) | @RateLimited, 1 sliding window | 8,000 (7,500–8,501) | 0.80 (0.75–0.85) | 2.00 \
				| 5.12 | 2.50 | 1.02 | 12.3 | 151 | 30 | 25.0 | 5.0 | 2 |
				""");
	}

	@Test
	void thePacedTableShowsEveryColumnOfTheReferenceAndOfAMeasuredRow() {
		HttpPacedResult plain = new HttpPacedResult(HttpServerKind.TOMCAT, HttpEndpoint.PLAIN, 4, 5_000.4,
				new HttpResult.Spread(3000, 2500, 4000), new HttpResult.Spread(0, 0, 0), 500, 1500, Double.NaN, 0,
				new HttpResult.Spread(0, 0, 0), 300, 900, Double.NaN, Double.NaN, 0);
		HttpPacedResult limited = new HttpPacedResult(HttpServerKind.NETTY, HttpEndpoint.LIMIT_1, 4, 4_000,
				new HttpResult.Spread(4000, 3500, 5000), new HttpResult.Spread(1000, 500, 1500), 800, 2400, 6000, 900,
				new HttpResult.Spread(850, 700, 1100), 700, 2000, 750, 830, 1);
		assertThat(HttpPacedResults.markdown(List.of(plain, limited))).isEqualTo("""
				| server | endpoint | slices | requests/s | wrk p99 ms median (min–max) \
				| wrk p99 added ms, paired median (min–max) | in server p50 ms | in server p99 ms \
				| in server p99.9 ms | in server p99 added ms; paired median (min–max) \
				| advised method p50 / p99 ms | Redis round trip p50 / p99 ms | failed |
				|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|
				| Tomcat (Spring MVC) | plain (no Redkit; reference) | 4 | 5,000 | 3.00 (2.50–4.00) | – | 0.50 | 1.50 \
				| – | – | 0.30 / 0.90 | – | 0 |
				| Netty (WebFlux) | @RateLimited, 1 sliding window | 4 | 4,000 | 4.00 (3.50–5.00) | 1.00 (0.50–1.50) \
				| 0.80 | 2.40 | 6.00 | 0.90; paired 0.85 (0.70–1.10) | 0.70 / 2.00 | 0.75 / 0.83 | 1 |
				""");
	}

}
