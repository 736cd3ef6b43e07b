package io.github.redkit.actuate;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.github.redkit.core.RedisKeyspace;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.LettuceFutures;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.async.RedisKeyAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Held locks, found with {@code SCAN} on Redkit's lock prefix (never {@code KEYS}), one
 * bounded page at a time; and their forced release. A lock's owner token is read to name
 * the holder's instance (its first, per-process part) and never shown.
 */
public class LockViews {

	private static final Log logger = LogFactory.getLog(LockViews.class);

	private final RedisConnectionFactory connectionFactory;

	private final RedisKeyspace keyspace;

	private final RedkitEndpointProperties properties;

	/**
	 * Creates the views.
	 * @param connectionFactory the connection factory
	 * @param keyspace the keyspace
	 * @param properties the endpoint's properties
	 */
	public LockViews(RedisConnectionFactory connectionFactory, RedisKeyspace keyspace,
			RedkitEndpointProperties properties) {
		this.connectionFactory = connectionFactory;
		this.keyspace = keyspace;
		this.properties = properties;
	}

	/**
	 * One page of held locks: {@code SCAN} calls with {@code COUNT} until {@code count}
	 * locks are found, the keyspace is walked, or the page's deadline passes.
	 * @param cursor where the previous page stopped ({@code null} or {@code 0} to start)
	 * @param count how many locks at most
	 * @return the locks and the cursor of the next page ({@code 0} when done)
	 */
	public Map<String, Object> page(@Nullable String cursor, @Nullable Integer count) {
		int wanted = Math.max(1, Math.min((count != null) ? count : 50, this.properties.getMaxPageSize()));
		long deadline = System.nanoTime() + this.properties.getScanTimeout().toNanos();
		String lockPrefix = this.keyspace.key("lock").build() + ":";
		byte[] match = (escapeGlob(lockPrefix) + "{*}").getBytes(StandardCharsets.UTF_8);
		String next = (cursor != null && !cursor.isBlank()) ? cursor : "0";
		List<Map<String, Object>> locks = new ArrayList<>();
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			RedisKeyAsyncCommands<byte[], byte[]> commands = lettuce(connection);
			ScanArgs args = new ScanArgs().match(match).limit(this.properties.getScanCount());
			do {
				KeyScanCursor<byte[]> scanned = LettuceFutures.awaitOrCancel(commands.scan(ScanCursor.of(next), args),
						this.properties.getScanTimeout().toNanos(), TimeUnit.NANOSECONDS);
				next = scanned.isFinished() ? "0" : scanned.getCursor();
				for (byte[] key : scanned.getKeys()) {
					Map<String, Object> lock = describe(connection, new String(key, StandardCharsets.UTF_8),
							lockPrefix);
					if (lock != null) {
						locks.add(lock);
					}
				}
			}
			while (locks.size() < wanted && !"0".equals(next) && System.nanoTime() < deadline);
		}
		Map<String, Object> page = new LinkedHashMap<>();
		page.put("locks", locks);
		page.put("cursor", next);
		page.put("complete", "0".equals(next));
		return page;
	}

	private @Nullable Map<String, Object> describe(RedisConnection connection, String key, String lockPrefix) {
		byte[] raw = key.getBytes(StandardCharsets.UTF_8);
		byte[] token = connection.stringCommands().get(raw);
		Long ttl = connection.keyCommands().pTtl(raw);
		if (token == null || ttl == null || ttl < 0) {
			return null; // released between SCAN and now
		}
		byte[] fence = connection.stringCommands().get((key + ":fence").getBytes(StandardCharsets.UTF_8));
		String owner = new String(token, StandardCharsets.UTF_8);
		Map<String, Object> lock = new LinkedHashMap<>();
		lock.put("key", unescape(key.substring(lockPrefix.length() + 1, key.length() - 1)));
		lock.put("holderInstance", owner.substring(0, Math.max(0, owner.indexOf(':'))));
		lock.put("remainingLease", Duration.ofMillis(ttl).toString());
		lock.put("fencingToken", (fence != null) ? Long.parseLong(new String(fence, StandardCharsets.US_ASCII)) : null);
		return lock;
	}

	/**
	 * Deletes a lock whoever holds it, and wakes its waiters. Logged at WARN.
	 * @param key the lock's key, as the application passes it to the lock
	 * @param who the operator, if known
	 * @return whether a lock was held
	 */
	public boolean forceRelease(String key, String who) {
		String lock = this.keyspace.key("lock").tag(key).build();
		byte[] raw = lock.getBytes(StandardCharsets.UTF_8);
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			Long deleted = connection.keyCommands().del(raw);
			boolean held = deleted != null && deleted > 0;
			logger.warn("Lock '" + key + "' (" + lock + ") force-released by " + who + " through the redkit endpoint"
					+ (held ? "" : "; it was not held"));
			if (held) {
				connection.publish(raw, new byte[0]);
			}
			return held;
		}
	}

	@SuppressWarnings("unchecked")
	private static RedisKeyAsyncCommands<byte[], byte[]> lettuce(RedisConnection connection) {
		// SCAN from a given cursor is not in Spring Data's API; Lettuce's is (standalone
		// and
		// Sentinel: a cluster's cursor is per node)
		if (connection.getNativeConnection() instanceof RedisKeyAsyncCommands<?, ?> commands
				&& !(commands instanceof RedisAdvancedClusterAsyncCommands<?, ?>)) {
			return (RedisKeyAsyncCommands<byte[], byte[]>) commands;
		}
		throw new IllegalStateException("Listing locks needs a standalone or Sentinel Lettuce connection");
	}

	// the key as the application passed it, so that it can be force-released by it; a
	// hashed key (# and its SHA-256) cannot be reversed and is shown as it is
	private static String unescape(String part) {
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

	private static String escapeGlob(String text) {
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
