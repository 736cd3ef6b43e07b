package io.github.redkit.ratelimit;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import io.github.redkit.core.RedisKeyspace;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.zset.Tuple;

/**
 * Reads an identifier's usage of a limit without consuming anything: the record the
 * decision scripts keep is read with one {@code GET} (a {@code ZCOUNT} per window for a
 * sliding log) and decoded here, on Redis' clock ({@code TIME}). Reading Java-side keeps
 * the hot scripts untouched; a read that races a decision may be one call behind, which
 * is fine for an operator's view.
 */
public final class RateLimitUsage {

	private RateLimitUsage() {
	}

	/**
	 * The usage of one window.
	 *
	 * @param limit permits per period
	 * @param period the period
	 * @param used permits counted now
	 * @param remaining permits left now
	 * @param resetsIn until every counted permit is back (zero when none is counted)
	 */
	public record Window(long limit, Duration period, long used, long remaining, Duration resetsIn) {

		static Window of(RateLimitWindow window, long used, double resetsInMillis) {
			long clamped = Math.max(0, Math.min(used, window.limit()));
			return new Window(window.limit(), window.period(), clamped, window.limit() - clamped,
					Duration.ofMillis((clamped > 0) ? (long) Math.ceil(Math.max(0, resetsInMillis)) : 0));
		}

	}

	/**
	 * The Redis key that holds an identifier's state of a named limit.
	 * @param keyspace the keyspace
	 * @param limitName the limit
	 * @param policy its policy
	 * @param identifier the identifier
	 * @return the key
	 */
	public static String key(RedisKeyspace keyspace, String limitName, RateLimitPolicy policy, String identifier) {
		return PreparedLimit.of(limitName, policy, keyspace).key(identifier);
	}

	/**
	 * Reads the usage of every window of a policy.
	 * @param connection the connection
	 * @param key the identifier's key (see {@link #key})
	 * @param policy the policy
	 * @return one usage per window, in the policy's order
	 */
	public static List<Window> read(RedisConnection connection, String key, RateLimitPolicy policy) {
		Long micros = connection.serverCommands().time(TimeUnit.MICROSECONDS);
		double now = (micros != null) ? micros / 1000.0 : System.currentTimeMillis();
		byte[] rawKey = key.getBytes(StandardCharsets.UTF_8);
		if (policy.algorithm() == RateLimitAlgorithm.SLIDING_LOG) {
			return readLog(connection, rawKey, policy, now);
		}
		byte[] state = connection.stringCommands().get(rawKey);
		List<Window> usage = new ArrayList<>();
		for (RateLimitWindow window : policy.windows()) {
			double[] record = (state != null) ? find(state, policy, window.period().toMillis()) : null;
			usage.add((record != null) ? decode(policy, window, record, now) : Window.of(window, 0, 0));
		}
		return usage;
	}

	private static List<Window> readLog(RedisConnection connection, byte[] key, RateLimitPolicy policy, double now) {
		List<Window> usage = new ArrayList<>();
		for (RateLimitWindow window : policy.windows()) {
			double periodMicros = window.period().toMillis() * 1000.0;
			double since = now * 1000 - periodMicros;
			Long used = connection.zSetCommands().zCount(key, Math.nextUp(since), Double.POSITIVE_INFINITY);
			Set<Tuple> newest = connection.zSetCommands().zRangeWithScores(key, -1, -1);
			double reset = (newest == null || newest.isEmpty()) ? 0
					: (newest.iterator().next().getScore() + periodMicros) / 1000 - now;
			usage.add(Window.of(window, (used != null) ? used : 0, reset));
		}
		return usage;
	}

	private static Window decode(RateLimitPolicy policy, RateLimitWindow window, double[] record, double now) {
		double period = window.period().toMillis();
		switch (policy.algorithm()) {
			case FIXED_WINDOW -> {
				double index = Math.floor(Math.floor(now) / period);
				boolean current = record[1] == index;
				return Window.of(window, current ? (long) record[2] : 0, (index + 1) * period - now);
			}
			case TOKEN_BUCKET -> {
				// GCRA: every token taken pushes the theoretical arrival time one
				// interval on
				double ahead = record[1] - now;
				double interval = period / window.limit();
				return Window.of(window, (long) Math.ceil(Math.max(0, ahead) / interval), ahead);
			}
			default -> {
				int slots = policy.subWindows() + 1;
				double width = period / policy.subWindows();
				long index = (long) Math.floor(now / width);
				long newest = (long) record[1];
				long used = 0;
				for (long q = Math.max(index, newest) - policy.subWindows(); q <= newest; q++) {
					used += (long) record[4 + (int) Math.floorMod(q, slots)];
				}
				return Window.of(window, used, (newest + 1) * width + period - now);
			}
		}
	}

	// the records of every window, one after the other, each starting with its period
	private static double @Nullable [] find(byte[] state, RateLimitPolicy policy, long period) {
		boolean sliding = policy.algorithm() == RateLimitAlgorithm.SLIDING_WINDOW;
		boolean wide = sliding && PreparedLimit.of("usage", policy, new RedisKeyspace("r")).keySuffix().endsWith("d");
		int numbers = sliding ? policy.subWindows() + 5 : 4;
		int ringWidth = wide ? 8 : 4;
		int size = sliding ? 24 + (numbers - 3) * ringWidth : 32;
		if (state.length % size != 0) {
			return null;
		}
		ByteBuffer buffer = ByteBuffer.wrap(state).order(ByteOrder.LITTLE_ENDIAN);
		for (int at = 0; at < state.length; at += size) {
			buffer.position(at);
			if (buffer.getDouble() != period) {
				continue;
			}
			double[] record = new double[numbers];
			record[0] = period;
			for (int i = 1; i < numbers; i++) {
				record[i] = (i < 3 || !sliding || wide) ? buffer.getDouble() : Integer.toUnsignedLong(buffer.getInt());
			}
			return record;
		}
		return null;
	}

}
