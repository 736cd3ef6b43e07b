package io.github.redkit.actuate;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import io.github.redkit.core.RedisKeyspace;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.async.RedisKeyAsyncCommands;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.masterreplica.StatefulRedisMasterReplicaConnection;
import io.lettuce.core.output.KeyScanOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.ProtocolKeyword;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.data.redis.connection.RedisConnection;

/**
 * One bounded page of keys found with {@code SCAN ... MATCH ... COUNT ...} from an opaque
 * cursor (never {@code KEYS}). On a cluster every master is walked in turn, in the order
 * of the first slot it serves (a promoted replica keeps its place). A page is made of
 * whole {@code SCAN} batches, so that its cursor is {@code SCAN}'s own and a walk
 * guarantees what {@code SCAN} does: a key present for the whole walk is listed, and
 * listed twice only when Redis resized its table meanwhile. A batch holding more entries
 * than the page has room for is not taken: the page ends before it, or, when it has
 * nothing yet, scans it again with a {@code COUNT} scaled to the entries it found (down
 * to 1). A page also ends when the room it has left is smaller than what its last batch
 * held (another batch would cost a {@code SCAN} for a few entries). Each batch's
 * {@code COUNT} follows the entries the batch before it held, from {@code scan-count}
 * down and back up, and the cursor carries it to the next page. Only a batch of
 * {@code COUNT 1} (one bucket) with more entries than the page is taken in part, in key
 * order: the cursor then remembers the last key taken and the cursor the batch ended at,
 * and the next page takes the keys after it when the batch ends there again (the same
 * buckets), else the whole batch again. The cursor is
 * {@code [<master index>:]<SCAN cursor>[.<last key>.<end cursor>][~<COUNT>]} (the key in
 * unpadded Base64URL, the {@code COUNT} when it is not {@code scan-count}); {@code 0}
 * starts and, returned, means done; a page that ends before the first {@code SCAN} of a
 * standalone walk answered returns {@code 0.} (the start, after the empty key). A cursor
 * of the earlier form {@code <SCAN cursor>.<last key>} (without the end) starts its batch
 * again. On a master/replica connection (Sentinel, or a {@code ReadFrom}) every
 * {@code SCAN} goes to the master, whatever the connection reads from.
 */
public final class KeyScan {

	private static final String DONE = "0";

	// SCAN, which a master/replica connection does not route by its ReadFrom
	private static final ProtocolKeyword SCAN_ON_MASTER = new ProtocolKeyword() {

		private final byte[] name = "SCAN".getBytes(StandardCharsets.US_ASCII);

		@Override
		public byte[] getBytes() {
			return this.name;
		}

		@Override
		public String toString() {
			return "SCAN";
		}

	};

	private KeyScan() {
	}

	/**
	 * The keys of one page and where the next page starts.
	 *
	 * @param keys the keys, at most the page's size
	 * @param cursor the cursor of the next page, {@code 0} when done
	 */
	public record Page(List<String> keys, String cursor) {

		/**
		 * Whether the walk is done.
		 * @return {@code true} when the cursor is {@code 0}
		 */
		public boolean complete() {
			return DONE.equals(this.cursor);
		}

	}

	/**
	 * Scans until {@code wanted} keys are taken, the room left is smaller than what the
	 * last batch held, the next batch holds more than the page has room for, the keyspace
	 * is walked, or the deadline passes (checked between two {@code SCAN} calls).
	 * @param connection the connection
	 * @param cursor where the previous page stopped ({@code null} or {@code 0} to start)
	 * @param match the glob
	 * @param settings the {@code COUNT} hint and the time bound
	 * @param wanted the page's size
	 * @param accept which of the matching keys count as entries
	 * @return the page
	 * @throws InvalidEndpointRequestException when the cursor is not one a page handed
	 * out
	 */
	public static Page scan(RedisConnection connection, @Nullable String cursor, String match,
			EndpointSettings settings, int wanted, Predicate<String> accept) {
		long deadline = System.nanoTime() + settings.scanTimeout().toNanos();
		byte[] glob = match.getBytes(StandardCharsets.UTF_8);
		Object nativeConnection = connection.getNativeConnection();
		boolean cluster = nativeConnection instanceof RedisAdvancedClusterAsyncCommands<?, ?>;
		int scanCount = settings.scanCount();
		Position position = Position.parse((cursor != null && !cursor.isBlank()) ? cursor.trim() : DONE, cluster,
				scanCount);
		List<Node> nodes = (cluster) ? masters((RedisAdvancedClusterAsyncCommands<?, ?>) nativeConnection)
				: List.of(standalone(nativeConnection));
		List<String> keys = new ArrayList<>(wanted);
		if (position.node >= nodes.size()) {
			return new Page(keys, DONE); // the cluster shrank under the cursor
		}
		boolean first = true;
		while (true) {
			KeyScanCursor<byte[]> scanned = await(
					nodes.get(position.node)
						.scan(ScanCursor.of(position.scan), new ScanArgs().match(glob).limit(position.count)),
					first, settings, deadline);
			if (scanned == null) {
				return new Page(keys, position.format(cluster, scanCount));
			}
			first = false;
			String end = scanned.isFinished() ? DONE : scanned.getCursor();
			// the same buckets as the batch an earlier page took in part: the keys after
			// the last it took; a batch that ends elsewhere changed and is taken whole
			String after = (position.resumesInside() && end.equals(position.end)) ? position.after : null;
			// in key order, once each (a SCAN batch may repeat a key)
			SortedSet<String> batch = new TreeSet<>();
			for (byte[] key : scanned.getKeys()) {
				String text = new String(key, StandardCharsets.UTF_8);
				if ((after == null || text.compareTo(after) > 0) && accept.test(text)) {
					batch.add(text);
				}
			}
			int room = wanted - keys.size();
			if (batch.size() > room) {
				if (!keys.isEmpty()) {
					// the next page starts with this batch, scanned for a page's room
					return new Page(keys,
							position.whole(Count.following(position.count, batch.size(), wanted, scanCount))
								.format(cluster, scanCount));
				}
				if (after == null && position.count > 1) {
					position = position.whole(Count.scaled(position.count, batch.size(), wanted));
					continue;
				}
				// one bucket with more entries than a page (or the rest of a batch a
				// page of the earlier release took in part): taken in part
				List<String> taken = new ArrayList<>(batch).subList(0, room);
				return new Page(taken, position.inside(taken.get(taken.size() - 1), end).format(cluster, scanCount));
			}
			keys.addAll(batch);
			int left = wanted - keys.size();
			// a page whose room left is smaller than what its last batch held ends: the
			// next batch, sized to that room, would cost a SCAN for a few entries
			boolean full = left < Math.max(1, batch.size());
			position = position.next(end,
					Count.following(position.count, batch.size(), full ? wanted : left, scanCount));
			if (position.node == nodes.size()) {
				return new Page(keys, DONE);
			}
			if (full || System.nanoTime() >= deadline) {
				return new Page(keys, position.format(cluster, scanCount));
			}
		}
	}

	/**
	 * The {@code COUNT} of a batch, from the entries the batch before it held: Redis
	 * visits about {@code COUNT} keys a batch, of which those matching are returned, so
	 * the share of entries among them sizes the next batch to three quarters of the room
	 * it has, which a batch seldom overfills.
	 */
	static final class Count {

		private Count() {
		}

		// a batch of `count` held more entries than `room`: strictly fewer
		static int scaled(int count, int entries, int room) {
			return (int) Math.max(1, Math.min(count - 1L, 3L * count * room / (4L * entries)));
		}

		// after a batch of `count` that held `entries`, for a room of `room`
		static int following(int count, int entries, int room, int scanCount) {
			long sized = (entries == 0) ? 8L * count : 3L * count * room / (4L * entries);
			return (int) Math.max(1, Math.min(scanCount, sized));
		}

	}

	/**
	 * Where a walk stands: the node, its {@code SCAN} cursor and the {@code COUNT} of the
	 * batch it starts, and, when a page took that batch in part, the last key taken from
	 * it and the cursor the batch ended at.
	 */
	private record Position(int node, String scan, @Nullable String after, @Nullable String end, int count) {

		static Position parse(String cursor, boolean cluster, int scanCount) {
			String rest = cursor;
			int count = scanCount;
			int countSeparator = rest.lastIndexOf('~');
			if (countSeparator >= 0) {
				count = number(rest.substring(countSeparator + 1), cursor, "its COUNT");
				if (count == 0) {
					throw invalid(cursor, "its COUNT is 0");
				}
				// the cursor is the client's to write, and a lowered scan-count holds
				// for the cursors handed out before: never a larger COUNT than it
				count = Math.min(count, scanCount);
				rest = rest.substring(0, countSeparator);
			}
			int node = 0;
			int separator = rest.indexOf(':');
			if (separator >= 0) {
				if (!cluster) {
					throw invalid(cursor, "a standalone Redis' cursor has no node");
				}
				node = number(rest.substring(0, separator), cursor, "its node");
				rest = rest.substring(separator + 1);
			}
			String[] parts = rest.split("\\.", -1);
			if (parts.length > 3) {
				throw invalid(cursor, "it has more than three parts");
			}
			String after = null;
			if (parts.length > 1) {
				try {
					after = new String(Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8);
				}
				catch (IllegalArgumentException ex) {
					throw invalid(cursor, "its last key is not Base64URL");
				}
			}
			String end = (parts.length > 2) ? scanCursor(parts[2], cursor, "its batch's end") : null;
			return new Position(node, scanCursor(parts[0], cursor, "its SCAN cursor"), after, end, count);
		}

		private static String scanCursor(String text, String cursor, String what) {
			if (text.isEmpty() || !text.chars().allMatch((c) -> c >= '0' && c <= '9')) {
				throw invalid(cursor, what + " is not a decimal number");
			}
			try {
				// Redis' cursors are unsigned 64-bit numbers: a larger one is its error
				Long.parseUnsignedLong(text);
			}
			catch (NumberFormatException ex) {
				throw invalid(cursor, what + " is larger than any Redis hands out");
			}
			return text;
		}

		private static int number(String text, String cursor, String what) {
			if (text.isEmpty() || text.length() > 6 || !text.chars().allMatch((c) -> c >= '0' && c <= '9')) {
				throw invalid(cursor, what + " is not a small decimal number");
			}
			return Integer.parseInt(text);
		}

		private static InvalidEndpointRequestException invalid(String cursor, String why) {
			String reason = "Malformed cursor '" + cursor + "': " + why
					+ "; pass the cursor of the previous page, or 0 to start";
			return new InvalidEndpointRequestException(reason, reason);
		}

		/**
		 * Whether an earlier page took part of the batch this cursor starts (the empty
		 * key of {@code 0.} took none).
		 */
		boolean resumesInside() {
			return this.after != null && !this.after.isEmpty() && this.end != null;
		}

		// the batch from this cursor, taken whole with that COUNT
		Position whole(int batchCount) {
			return new Position(this.node, this.scan, null, null, batchCount);
		}

		// a page took this batch, which ended at that cursor, in part
		Position inside(String lastKey, String batchEnd) {
			return new Position(this.node, this.scan, lastKey, batchEnd, this.count);
		}

		// the batch is taken: the next SCAN cursor, or the next node's start
		Position next(String scanned, int nextCount) {
			return DONE.equals(scanned) ? new Position(this.node + 1, DONE, null, null, nextCount)
					: new Position(this.node, scanned, null, null, nextCount);
		}

		String format(boolean cluster, int scanCount) {
			String position = cluster ? this.node + ":" + this.scan : this.scan;
			String count = (this.count != scanCount) ? "~" + this.count : "";
			if (this.after == null) {
				// a walk's start, handed out by a page whose first SCAN went unanswered:
				// 0 would mean done, so it is the start after the empty key
				return (DONE.equals(position) ? position + "." : position) + count;
			}
			String key = Base64.getUrlEncoder()
				.withoutPadding()
				.encodeToString(this.after.getBytes(StandardCharsets.UTF_8));
			// a cursor of the earlier form, handed back by a page whose first SCAN went
			// unanswered, keeps its form
			return position + "." + key + ((this.end != null) ? "." + this.end : "") + count;
		}

	}

	/** Where one node's {@code SCAN} calls go. */
	@FunctionalInterface
	private interface Node {

		RedisFuture<KeyScanCursor<byte[]>> scan(ScanCursor cursor, ScanArgs args);

	}

	@SuppressWarnings("unchecked")
	private static List<Node> masters(RedisAdvancedClusterAsyncCommands<?, ?> cluster) {
		StatefulRedisClusterConnection<byte[], byte[]> connection = (StatefulRedisClusterConnection<byte[], byte[]>) cluster
			.getStatefulConnection();
		return connection.getPartitions()
			.stream()
			.filter((node) -> node.is(RedisClusterNode.NodeFlag.UPSTREAM) && !node.getSlots().isEmpty())
			.sorted(Comparator.comparingInt((RedisClusterNode node) -> node.getSlots().get(0)))
			.map((node) -> (Node) ((RedisKeyAsyncCommands<byte[], byte[]>) connection.getConnection(node.getNodeId())
				.async())::scan)
			.toList();
	}

	@SuppressWarnings("unchecked")
	private static Node standalone(Object nativeConnection) {
		// SCAN from a given cursor is not in Spring Data's API; Lettuce's is
		if (nativeConnection instanceof RedisAsyncCommands<?, ?> commands
				&& commands.getStatefulConnection() instanceof StatefulRedisMasterReplicaConnection<?, ?>) {
			RedisAsyncCommands<byte[], byte[]> masterReplica = (RedisAsyncCommands<byte[], byte[]>) commands;
			return (cursor, args) -> scanOnMaster(masterReplica, cursor, args);
		}
		if (nativeConnection instanceof RedisKeyAsyncCommands<?, ?> commands) {
			return ((RedisKeyAsyncCommands<byte[], byte[]>) commands)::scan;
		}
		throw new IllegalStateException("Listing keys needs a Lettuce connection");
	}

	/**
	 * A {@code SCAN} a master/replica connection sends to its master. Lettuce sends the
	 * commands it knows as read-only, {@code SCAN} among them, where the connection's
	 * {@code ReadFrom} says: with replicas, each call to any one it picks, and a cursor
	 * of one server means nothing on another (each has its own hash seed). The same
	 * command under a name of its own is not one it knows, so it goes to the master.
	 */
	private static RedisFuture<KeyScanCursor<byte[]>> scanOnMaster(RedisAsyncCommands<byte[], byte[]> commands,
			ScanCursor cursor, ScanArgs args) {
		CommandArgs<byte[], byte[]> arguments = new CommandArgs<>(ByteArrayCodec.INSTANCE).add(cursor.getCursor());
		args.build(arguments);
		return commands.dispatch(SCAN_ON_MASTER, new KeyScanOutput<>(ByteArrayCodec.INSTANCE), arguments);
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

	/**
	 * A key part as the application passed it, so that it can be acted on by it: the
	 * exact inverse of {@link RedisKeyspace#escape(String)}, so two different parts never
	 * show alike. A lone UTF-16 surrogate (stored as the three WTF-8 bytes of its code
	 * unit) comes back as that surrogate, which JSON shows as its escape
	 * ({@code "\ud800"}). A hashed part ({@code #} and its SHA-256) cannot be reversed,
	 * nor a part escaping cannot have written (another writer's key under the prefix):
	 * each is returned as it is stored.
	 * @param part a part as {@code RedisKeyspace} stored it
	 * @return the part before escaping
	 */
	public static String unescape(String part) {
		if (part.startsWith("#") || part.indexOf('%') < 0) {
			return part;
		}
		ByteArrayOutputStream bytes = new ByteArrayOutputStream(part.length());
		for (int i = 0; i < part.length(); i++) {
			char c = part.charAt(i);
			if (c != '%') {
				bytes.write(c);
			}
			else if (i + 2 < part.length() && HexFormat.isHexDigit(part.charAt(i + 1))
					&& HexFormat.isHexDigit(part.charAt(i + 2))) {
				bytes.write(HexFormat.fromHexDigits(part, i + 1, i + 3));
				i += 2;
			}
			else {
				return part;
			}
		}
		String raw = decode(bytes.toByteArray());
		// escaping the result gives the part back only where escaping wrote it: what
		// it writes is ASCII, upper-case hex, UTF-8 and a lone surrogate's three bytes
		return (raw != null && !raw.isEmpty() && RedisKeyspace.escape(raw).equals(part)) ? raw : part;
	}

	// UTF-8 read as RedisKeyspace writes it: a three-byte sequence may hold a surrogate
	// (its code unit); null where the bytes are no such sequence
	private static @Nullable String decode(byte[] bytes) {
		StringBuilder text = new StringBuilder(bytes.length);
		int i = 0;
		while (i < bytes.length) {
			int lead = bytes[i] & 0xFF;
			int length = (lead < 0x80) ? 1 : (lead >= 0xC2 && lead < 0xE0) ? 2
					: (lead >= 0xE0 && lead < 0xF0) ? 3 : (lead >= 0xF0 && lead < 0xF5) ? 4 : 0;
			if (length == 0 || i + length > bytes.length) {
				return null;
			}
			int codePoint = (length == 1) ? lead : lead & (0xFF >> (length + 1));
			for (int k = 1; k < length; k++) {
				int next = bytes[i + k] & 0xFF;
				if ((next & 0xC0) != 0x80) {
					return null;
				}
				codePoint = (codePoint << 6) | (next & 0x3F);
			}
			if (codePoint > Character.MAX_CODE_POINT) {
				return null;
			}
			text.appendCodePoint(codePoint);
			i += length;
		}
		return text.toString();
	}

	/**
	 * Escapes the glob characters of a {@code SCAN ... MATCH} pattern.
	 * @param text literal text
	 * @return the text, matching only itself
	 */
	public static String escapeGlob(String text) {
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
