package io.github.redkit.ratelimit.internal;

import java.util.List;

import io.github.redkit.ratelimit.RateLimitAlgorithm;
import io.github.redkit.ratelimit.RateLimitPolicy;
import io.github.redkit.ratelimit.RateLimitUsage;
import io.github.redkit.ratelimit.RateLimitWindow;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;

/**
 * Everything the Java side knows of one counting algorithm: its scripts, the last part of
 * its keys, which windows it can count, the layout of the record its script keeps, and
 * how an operator's view reads that record. Each {@link RateLimitAlgorithm} constant has
 * one, so that adding an algorithm is one class and its scripts.
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
	default String refundScriptName() {
		return scriptName().replaceFirst("^ratelimit_", "ratelimit_refund_");
	}

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
