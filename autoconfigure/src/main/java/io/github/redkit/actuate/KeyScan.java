package io.github.redkit.actuate;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.async.RedisKeyAsyncCommands;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;

/**
 * One bounded walk of {@code SCAN ... MATCH ... COUNT ...} from an opaque cursor (never
 * {@code KEYS}). On a cluster every master is walked in turn, in the order of the first
 * slot it serves (a promoted replica keeps its place); the cursor is then
 * {@code <master index>:<that master's cursor>}. {@code 0} starts and, returned, means
 * done.
 */
final class KeyScan {

	private static final String DONE = "0";

	private KeyScan() {
	}

	/**
	 * Scans until {@code enough} says so, the keyspace is walked, or the deadline passes
	 * (checked between two {@code SCAN} calls).
	 * @param connection the connection
	 * @param cursor where the previous page stopped ({@code null} or {@code 0} to start)
	 * @param match the glob
	 * @param settings the {@code COUNT} hint and the time bound
	 * @param enough whether the page is full
	 * @param keys receives every key found
	 * @return the cursor of the next page, {@code 0} when done
	 */
	static String scan(RedisConnection connection, @Nullable String cursor, String match, EndpointSettings settings,
			BooleanSupplier enough, Consumer<String> keys) {
		long deadline = System.nanoTime() + settings.scanTimeout().toNanos();
		ScanArgs args = new ScanArgs().match(match.getBytes(StandardCharsets.UTF_8)).limit(settings.scanCount());
		Object nativeConnection = connection.getNativeConnection();
		String next = (cursor != null && !cursor.isBlank()) ? cursor.trim() : DONE;
		if (nativeConnection instanceof RedisAdvancedClusterAsyncCommands<?, ?> cluster) {
			return scanCluster(masters(cluster), next, args, settings, deadline, enough, keys);
		}
		RedisKeyAsyncCommands<byte[], byte[]> commands = standalone(nativeConnection);
		boolean first = true;
		do {
			KeyScanCursor<byte[]> scanned = await(commands.scan(ScanCursor.of(next), args), first, settings, deadline);
			if (scanned == null) {
				return next;
			}
			first = false;
			next = scanned.isFinished() ? DONE : scanned.getCursor();
			scanned.getKeys().forEach((key) -> keys.accept(new String(key, StandardCharsets.UTF_8)));
		}
		while (!enough.getAsBoolean() && !DONE.equals(next) && System.nanoTime() < deadline);
		return next;
	}

	private static String scanCluster(List<RedisKeyAsyncCommands<byte[], byte[]>> masters, String cursor, ScanArgs args,
			EndpointSettings settings, long deadline, BooleanSupplier enough, Consumer<String> keys) {
		int separator = cursor.indexOf(':');
		int node = (separator > 0) ? Integer.parseInt(cursor.substring(0, separator)) : 0;
		String next = (separator > 0) ? cursor.substring(separator + 1) : DONE;
		if (node >= masters.size()) {
			return DONE; // the cluster shrank under the cursor: nothing left to walk
		}
		boolean first = true;
		do {
			KeyScanCursor<byte[]> scanned = await(masters.get(node).scan(ScanCursor.of(next), args), first, settings,
					deadline);
			if (scanned == null) {
				return node + ":" + next;
			}
			first = false;
			scanned.getKeys().forEach((key) -> keys.accept(new String(key, StandardCharsets.UTF_8)));
			next = scanned.isFinished() ? DONE : scanned.getCursor();
			if (DONE.equals(next)) {
				node++;
				if (node == masters.size()) {
					return DONE;
				}
			}
		}
		while (!enough.getAsBoolean() && System.nanoTime() < deadline);
		return node + ":" + next;
	}

	@SuppressWarnings("unchecked")
	private static List<RedisKeyAsyncCommands<byte[], byte[]>> masters(
			RedisAdvancedClusterAsyncCommands<?, ?> cluster) {
		StatefulRedisClusterConnection<byte[], byte[]> connection = (StatefulRedisClusterConnection<byte[], byte[]>) cluster
			.getStatefulConnection();
		return connection.getPartitions()
			.stream()
			.filter((node) -> node.is(RedisClusterNode.NodeFlag.UPSTREAM) && !node.getSlots().isEmpty())
			.sorted(Comparator.comparingInt((RedisClusterNode node) -> node.getSlots().get(0)))
			.map((node) -> (RedisKeyAsyncCommands<byte[], byte[]>) connection.getConnection(node.getNodeId()).async())
			.toList();
	}

	@SuppressWarnings("unchecked")
	private static RedisKeyAsyncCommands<byte[], byte[]> standalone(Object nativeConnection) {
		// SCAN from a given cursor is not in Spring Data's API; Lettuce's is
		if (nativeConnection instanceof RedisKeyAsyncCommands<?, ?> commands) {
			return (RedisKeyAsyncCommands<byte[], byte[]>) commands;
		}
		throw new IllegalStateException("Listing keys needs a Lettuce connection");
	}

	/**
	 * Waits for one {@code SCAN}: the page's first for the whole time bound (so that a
	 * page always makes progress on a Redis that answers within it), a later one until
	 * the deadline. A busy Redis that does not answer in time ends the page, not the
	 * request: the page goes back with the cursor before that call, which the next page
	 * repeats.
	 * @return the scanned keys, or {@code null} when the time ran out
	 */
	private static @Nullable KeyScanCursor<byte[]> await(RedisFuture<KeyScanCursor<byte[]>> scan, boolean first,
			EndpointSettings settings, long deadline) {
		long wait = first ? settings.scanTimeout().toNanos() : Math.max(deadline - System.nanoTime(), 0);
		try {
			return LettuceFutures.awaitOrCancel(scan, wait, TimeUnit.NANOSECONDS);
		}
		catch (RedisCommandTimeoutException ex) {
			return null;
		}
	}

	// a key part as the application passed it, so that it can be acted on by it; a
	// hashed part (# and its SHA-256) cannot be reversed and is shown as it is
	static String unescape(String part) {
		if (part.startsWith("#") || part.indexOf('%') < 0) {
			return part;
		}
		ByteArrayOutputStream bytes = new ByteArrayOutputStream(part.length());
		for (int i = 0; i < part.length(); i++) {
			char c = part.charAt(i);
			if (c == '%' && i + 2 < part.length()) {
				bytes.write(Integer.parseInt(part, i + 1, i + 3, 16));
				i += 2;
			}
			else {
				bytes.write(c);
			}
		}
		return bytes.toString(StandardCharsets.UTF_8);
	}

	static String escapeGlob(String text) {
		StringBuilder escaped = new StringBuilder();
		for (char c : text.toCharArray()) {
			if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') {
				escaped.append('\\');
			}
			escaped.append(c);
		}
		return escaped.toString();
	}

}
