package io.github.redkit.ratelimit.internal;

import java.util.Arrays;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Collectors;

import io.github.redkit.ratelimit.RateLimitAlgorithm;
import io.github.redkit.ratelimit.RateLimitPolicy;
import io.github.redkit.ratelimit.RateLimitUsage;
import io.github.redkit.ratelimit.RateLimitWindow;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;

/**
 * Everything the Java side knows of one counting algorithm: its scripts, the last part of
 * its keys, which windows it can count, the layout of the record its script keeps, how an
 * operator's view reads that record, and what it can do besides deciding (serve a local
 * allowance, be counted across regions, be charged an excess). Each
 * {@link RateLimitAlgorithm} constant has one, so that adding an algorithm is one class
 * and its scripts: no other class compares an algorithm with a constant
 * ({@code ArchitectureTests}), and the capabilities have no default, so the compiler asks
 * a new descriptor for each ({@code AlgorithmDescriptorTests}).
 */
public interface AlgorithmDescriptor {

	/**
	 * The descriptor of an algorithm.
	 * @param algorithm the algorithm
	 * @return its descriptor
	 */
	static AlgorithmDescriptor of(RateLimitAlgorithm algorithm) {
		return switch (algorithm) {
			case FIXED_WINDOW -> FixedWindowAlgorithm.INSTANCE;
			case SLIDING_WINDOW -> SlidingWindowAlgorithm.INSTANCE;
			case SLIDING_LOG -> SlidingLogAlgorithm.INSTANCE;
			case TOKEN_BUCKET -> TokenBucketAlgorithm.INSTANCE;
		};
	}

	/**
	 * The ids of the algorithms whose descriptors can do something, the default
	 * ({@code sliding-window}) first, for a message that names them.
	 * @param can what they must be able to do
	 * @return their ids, joined with {@code " or "}
	 */
	static String ids(Predicate<AlgorithmDescriptor> can) {
		return Arrays.stream(RateLimitAlgorithm.values())
			.sorted((a, b) -> Boolean.compare(a != RateLimitAlgorithm.SLIDING_WINDOW,
					b != RateLimitAlgorithm.SLIDING_WINDOW))
			.filter((algorithm) -> can.test(of(algorithm)))
			.map(RateLimitAlgorithm::id)
			.collect(Collectors.joining(" or "));
	}

	/**
	 * The decision script, by its resource name.
	 * @return the script's name
	 */
	String scriptName();

	/**
	 * The script that gives back what the decision script took, by its resource name: the
	 * same arguments and the decision's time (see {@link PreparedLimit#refundArguments}).
	 * By convention {@code ratelimit_refund_<algorithm>} beside
	 * {@code ratelimit_<algorithm>}.
	 * @return the refund script's name
	 */
	String refundScriptName();

	/**
	 * Whether a local allowance can serve a limit of this algorithm: only when a call is
	 * counted in a (sub-)window that ends ({@link #countingSpanMillis}), so that a batch
	 * handed out until then cannot overrun a window it was not counted in. A log keeps
	 * each call for a whole period from its own time, a bucket refills continuously:
	 * neither can.
	 * @return {@code true} when it can
	 */
	boolean servesLocalAllowances();

	/**
	 * How long the (sub-)window a call is counted in lasts: what it counted stops
	 * counting when that ends, so a local allowance's batch is handed out only until then
	 * (asked only of an algorithm that {@linkplain #servesLocalAllowances() serves local
	 * allowances}).
	 * @param policy the policy
	 * @param window one of its windows
	 * @return the length in milliseconds, at most the window's period
	 */
	double countingSpanMillis(RateLimitPolicy policy, RateLimitWindow window);

	/**
	 * Whether a limit of this algorithm may be marked {@code global}: counted across
	 * regions by {@code ratelimit_global_window}, which counts sub-windows as the sliding
	 * window does.
	 * @return {@code true} when it may
	 */
	boolean countsAcrossRegions();

	/**
	 * How many permits of an excess a settlement charges (a call settled above what it
	 * took): the decision script counts that many whatever the windows hold.
	 * @param policy the policy
	 * @param excess the excess, at least 1
	 * @return the permits to charge, between 1 and {@code excess}
	 */
	long chargeable(RateLimitPolicy policy, long excess);

	/**
	 * The last part of an identifier's key: it changes with the layout of the record, so
	 * that a changed layout starts afresh instead of misreading.
	 * @param policy the policy
	 * @return the key suffix
	 */
	String keySuffix(RateLimitPolicy policy);

	/**
	 * What keeps this algorithm from counting a window, said of its fields (e.g.
	 * {@code limit must be at most ...}) so that a caller can put the window's name
	 * first.
	 * @param window the window
	 * @return the problem, or {@code null} when the window can be counted
	 */
	default @Nullable String windowProblem(RateLimitWindow window) {
		return null;
	}

	/**
	 * The struct format of an identifier's record as the decision script reads it, with
	 * the byte order: by default one record of four little-endian doubles per window,
	 * each starting with its period (see {@code ratelimit_windows.lua}).
	 * @param policy the policy
	 * @return the record's format
	 */
	default String recordsFormat(RateLimitPolicy policy) {
		return "<" + WindowRecords.RECORD.repeat(policy.windows().size());
	}

	/**
	 * The script arguments this algorithm reads after the common ones (numbers, their
	 * format, the records' format); the refund script gets them too.
	 * @param policy the policy
	 * @return the extra arguments, none by default
	 */
	default byte[][] extraArguments(RateLimitPolicy policy) {
		return new byte[0][];
	}

	/**
	 * Reads an identifier's usage of every window without consuming anything.
	 * @param connection the connection
	 * @param key the identifier's key
	 * @param policy the policy
	 * @param now Redis' time, in milliseconds
	 * @return one usage per window, in the policy's order
	 */
	List<RateLimitUsage.Window> usage(RedisConnection connection, byte[] key, RateLimitPolicy policy, double now);

}
