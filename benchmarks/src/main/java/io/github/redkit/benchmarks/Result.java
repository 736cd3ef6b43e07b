package io.github.redkit.benchmarks;

/**
 * The measurement of one contender at one thread count.
 *
 * @param capability the capability
 * @param contender the contender's name
 * @param threads the number of threads
 * @param opsPerSecond operations per second
 * @param p50Micros median latency in microseconds
 * @param p99Micros 99th percentile latency in microseconds
 * @param commandsPerOp commands Redis ran per operation, those inside scripts included
 * @param roundTripsPerOp commands the client sent per operation
 * @param redisCpuMicrosPerOp CPU time the Redis server used per operation ({@code INFO
 * cpu}), in microseconds
 * @param redisScriptMicrosPerOp time Redis spent inside scripts per operation
 * ({@code INFO
 * commandstats} {@code usec} of {@code EVAL}, {@code EVALSHA} and {@code FCALL}), in
 * microseconds
 * @param clientCpuMicrosPerOp CPU time the benchmark's own process (every contender's
 * client, its event loops, GC and JIT included) used per operation, in microseconds
 * @param ratio throughput relative to the suite's reference at the same thread count
 * @param recordUsageBytes {@code MEMORY USAGE} of a record the contender keeps per
 * operation, {@code NaN} when it keeps none
 * @param recordMemoryBytes the growth of Redis' {@code used_memory} per record kept,
 * {@code NaN} when it keeps none
 */
public record Result(String capability, String contender, int threads, double opsPerSecond, double p50Micros,
		double p99Micros, double commandsPerOp, double roundTripsPerOp, double redisCpuMicrosPerOp,
		double redisScriptMicrosPerOp, double clientCpuMicrosPerOp, double ratio, double recordUsageBytes,
		double recordMemoryBytes) {
}
