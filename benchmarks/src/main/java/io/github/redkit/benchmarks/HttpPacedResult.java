package io.github.redkit.benchmarks;

/**
 * One row of the HTTP benchmark below saturation: an endpoint on a server over all its
 * paced slices; "added" values are the row's minus the plain endpoint's on the same
 * server, and "paired" ones are taken slice by slice (each slice of the row minus the
 * plain endpoint's slice of the same pass: the same moments of the machine).
 *
 * @param server the server
 * @param endpoint the endpoint
 * @param slices the slices measured
 * @param requestsPerSecond requests per second over the slices
 * @param wrkP99Micros {@code wrk}'s 99th percentile per slice: median, min and max
 * @param wrkP99AddedMicros the same minus the plain endpoint's, paired
 * @param serviceP50Micros median time in the server, over every slice's requests
 * @param serviceP99Micros its 99th percentile
 * @param serviceP999Micros its 99.9th percentile
 * @param serviceP99AddedMicros the 99th percentile in the server minus the plain
 * endpoint's, over every slice's requests
 * @param serviceP99AddedPairedMicros the same per slice, paired: median, min and max
 * @param advisedP50Micros median time in the endpoint's method through its proxy
 * @param advisedP99Micros its 99th percentile
 * @param redisRoundTripP50Micros median round trip of a Redis command on Lettuce's event
 * loop, {@code NaN} when none was sent
 * @param redisRoundTripP99Micros its 99th percentile
 * @param failed requests answered with neither 2xx nor 3xx, or not answered
 */
record HttpPacedResult(HttpServerKind server, HttpEndpoint endpoint, int slices, double requestsPerSecond,
		HttpResult.Spread wrkP99Micros, HttpResult.Spread wrkP99AddedMicros, double serviceP50Micros,
		double serviceP99Micros, double serviceP999Micros, double serviceP99AddedMicros,
		HttpResult.Spread serviceP99AddedPairedMicros, double advisedP50Micros, double advisedP99Micros,
		double redisRoundTripP50Micros, double redisRoundTripP99Micros, long failed) implements HttpTable.Row {

}
