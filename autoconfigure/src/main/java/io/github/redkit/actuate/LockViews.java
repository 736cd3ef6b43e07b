package io.github.redkit.actuate;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.redkit.core.LuaScript;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedisScriptRunner;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Held locks, found with {@code SCAN} on Redkit's lock prefix (never {@code KEYS}), one
 * bounded page at a time, on every topology; and their forced release, one script. A
 * lock's owner token is read to name the holder's instance (its first, per-process part)
 * and never shown.
 */
public class LockViews {

	private static final Log logger = LogFactory.getLog(LockViews.class);

	private static final LuaScript<Long> FORCE_RELEASE = LuaScript.load("endpoint_lock_release", Long.class);

	private final RedisConnectionFactory connectionFactory;

	private final RedisKeyspace keyspace;

	private final RedisScriptRunner runner;

	private final EndpointSettings settings;

	/**
	 * Creates the views.
	 * @param runner runs the force-release script
	 * @param keyspace the keyspace
	 * @param settings the endpoint's settings
	 */
	public LockViews(RedisScriptRunner runner, RedisKeyspace keyspace, EndpointSettings settings) {
		this.connectionFactory = runner.connectionFactory();
		this.runner = runner;
		this.keyspace = keyspace;
		this.settings = settings;
	}

	/**
	 * One page of held locks: {@code SCAN} calls with {@code COUNT} until {@code count}
	 * locks are found, the keyspace is walked, or the page's deadline passes. On a
	 * cluster, every master is walked in turn (see {@link KeyScan}).
	 * @param cursor where the previous page stopped ({@code null} or {@code 0} to start)
	 * @param count how many locks at most
	 * @return the locks and the cursor of the next page ({@code 0} when done)
	 */
	public Map<String, Object> page(@Nullable String cursor, @Nullable Integer count) {
		int wanted = this.settings.pageSize(count, 50);
		String lockPrefix = this.keyspace.key("lock").build() + ":";
		List<Map<String, Object>> locks = new ArrayList<>();
		String next;
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			next = KeyScan.scan(connection, cursor, KeyScan.escapeGlob(lockPrefix) + "{*}", this.settings,
					() -> locks.size() >= wanted, (key) -> {
						Map<String, Object> lock = describe(connection, key, lockPrefix);
						if (lock != null) {
							locks.add(lock);
						}
					});
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
		lock.put("key", KeyScan.unescape(key.substring(lockPrefix.length() + 1, key.length() - 1)));
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
		RedisKeyspace.Key lock = this.keyspace.key("lock").tag(key);
		boolean held = this.runner.execute(FORCE_RELEASE, List.of(lock.build(), lock.part("waiters").build())) == 1;
		logger.warn("Lock '" + key + "' (" + lock.build() + ") force-released by " + who
				+ " through the redkit endpoint" + (held ? "" : "; it was not held"));
		return held;
	}

}
