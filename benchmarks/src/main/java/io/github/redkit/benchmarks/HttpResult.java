package io.github.redkit.benchmarks;

import java.util.Arrays;

/**
 * One row of the HTTP benchmark: an endpoint on a server, over its interleaved rounds;
 * "added" values are the row's minus the plain endpoint's on the same server.
 *
 * @param server the server
 * @param endpoint the endpoint
 * @param rounds the rounds measured
 * @param requestsPerSecond saturated requests per second: median, min and max of the
 * rounds
 * @param ratio requests per second relative to the plain endpoint in the same round:
 * median, min and max
 * @param p50Micros median latency at saturation (median of the rounds)
 * @param p99Micros 99th percentile at saturation (median of the rounds)
 * @param commandsPerRequest commands Redis ran per request, those of scripts included
 * @param roundTripsPerRequest commands the application sent per request
 * @param redisCpuMicrosPerRequest CPU time of the Redis server per request
 * @param jvmCpuMicrosPerRequest CPU time of the application's JVM per request
 * @param jvmCpuAddedMicros the same minus the plain endpoint's
 * @param allocatedBytesPerRequest bytes the JVM's threads allocated per request
 * @param allocatedAddedBytes the same minus the plain endpoint's
 * @param failed requests answered with neither 2xx nor 3xx, or not answered
 */
record HttpResult(HttpServerKind server, HttpEndpoint endpoint, int rounds, Spread requestsPerSecond, Spread ratio,
		double p50Micros, double p99Micros, double commandsPerRequest, double roundTripsPerRequest,
		double redisCpuMicrosPerRequest, double jvmCpuMicrosPerRequest, double jvmCpuAddedMicros,
		double allocatedBytesPerRequest, double allocatedAddedBytes, long failed) implements HttpTable.Row {

	/**
	 * A value over the rounds.
	 *
	 * @param median the median
	 * @param min the smallest
	 * @param max the largest
	 */
	record Spread(double median, double min, double max) {

		static Spread of(double[] values) {
			double[] sorted = values.clone();
			Arrays.sort(sorted);
			return new Spread(median(sorted), sorted[0], sorted[sorted.length - 1]);
		}

		static double median(double[] sorted) {
			int middle = sorted.length / 2;
			return (sorted.length % 2 == 1) ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
		}

	}

}
