package io.github.redkit.actuate;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Pattern;

import io.github.redkit.core.LuaScript;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedisScriptRunner;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
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

	@SuppressWarnings("rawtypes")
	private static final LuaScript<List> READ = LuaScript.load("endpoint_locks", List.class);

	private static final String FENCE = ":fence";

	private static final Pattern STORED_TAG = Pattern.compile("[A-Za-z0-9._@%#-]{1,128}");

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
	 * locks are found, the keyspace is walked, or the page's deadline passes (see
	 * {@link KeyScan}); then the page's owners, leases and fencing tokens in one script
	 * call (on a cluster, one per lock, sent together). Each lock has an opaque
	 * {@code id} that {@link #forceReleaseById} takes.
	 * @param cursor where the previous page stopped ({@code null} or {@code 0} to start)
	 * @param count how many locks at most
	 * @return the locks and the cursor of the next page ({@code 0} when done)
	 */
	public Map<String, Object> page(@Nullable String cursor, @Nullable Integer count) {
		int wanted = this.settings.pageSize(count, 50);
		String lockPrefix = lockPrefix();
		KeyScan.Page found;
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			found = KeyScan.scan(connection, cursor, KeyScan.escapeGlob(lockPrefix) + "{*}", this.settings, wanted,
					(key) -> true);
		}
		List<Object> details = details(found.keys());
		List<Map<String, Object>> locks = new ArrayList<>();
		for (int i = 0; i < found.keys().size(); i++) {
			Map<String, Object> lock = describe(found.keys().get(i), lockPrefix, details.subList(3 * i, 3 * i + 3));
			if (lock != null) {
				locks.add(lock);
			}
		}
		Map<String, Object> page = new LinkedHashMap<>();
		page.put("locks", locks);
		page.put("cursor", found.cursor());
		page.put("complete", found.complete());
		return page;
	}

	// per lock: owner token, PTTL, fencing token
	private List<Object> details(List<String> keys) {
		if (keys.isEmpty()) {
			return List.of();
		}
		Duration timeout = this.settings.scanTimeout();
		if (!this.runner.isCluster()) {
			List<String> lockAndFence = new ArrayList<>(2 * keys.size());
			keys.forEach((key) -> Collections.addAll(lockAndFence, key, key + FENCE));
			return RedisScriptRunner.await(this.runner.executeAsync(READ, lockAndFence), timeout, "the held locks");
		}
		List<CompletableFuture<List>> calls = keys.stream()
			.map((key) -> this.runner.executeAsync(READ, List.of(key, key + FENCE)))
			.toList();
		List<Object> details = new ArrayList<>(3 * keys.size());
		calls.forEach((call) -> details.addAll(RedisScriptRunner.await(call, timeout, "the held locks")));
		return details;
	}

	private @Nullable Map<String, Object> describe(String key, String lockPrefix, List<Object> details) {
		String owner = String.valueOf(details.get(0));
		long ttl = (details.get(1) instanceof Long pttl) ? pttl : -2;
		if (owner.isEmpty() || ttl < 0) {
			return null; // released between SCAN and now
		}
		String fence = String.valueOf(details.get(2));
		String tag = key.substring(lockPrefix.length() + 1, key.length() - 1);
		Map<String, Object> lock = new LinkedHashMap<>();
		lock.put("id", Base64.getUrlEncoder().withoutPadding().encodeToString(tag.getBytes(StandardCharsets.UTF_8)));
		lock.put("key", KeyScan.unescape(tag));
		lock.put("holderInstance", owner.substring(0, Math.max(0, owner.indexOf(':'))));
		lock.put("remainingLease", Duration.ofMillis(ttl).toString());
		lock.put("fencingToken", fence.isEmpty() ? null : Long.parseLong(fence));
		return lock;
	}

	/**
	 * Deletes a lock whoever holds it, and wakes its waiters. Logged at WARN.
	 * @param key the lock's key, as the application passes it to the lock
	 * @param who the operator, if known
	 * @return whether a lock was held
	 */
	public boolean forceRelease(String key, String who) {
		return release(this.keyspace.key("lock").tag(key).build(), key, who);
	}

	/**
	 * Deletes a lock listed by {@link #page} whoever holds it, and wakes its waiters: the
	 * way to release a lock whose key is hashed (longer than
	 * {@value RedisKeyspace#MAX_PART_LENGTH} characters) or does not fit in a URL path.
	 * Logged at WARN.
	 * @param id the lock's {@code id} in the listing (the stored key's hash tag, in
	 * unpadded Base64URL)
	 * @param who the operator, if known
	 * @return whether a lock was held
	 * @throws InvalidEndpointRequestException when the id is not one a listing hands out
	 */
	public boolean forceReleaseById(String id, String who) {
		String tag;
		try {
			tag = new String(Base64.getUrlDecoder().decode(id), StandardCharsets.UTF_8);
		}
		catch (IllegalArgumentException ex) {
			tag = "";
		}
		// what RedisKeyspace.escape produces, so that an id cannot name a key outside the
		// lock's hash tag
		if (!STORED_TAG.matcher(tag).matches()) {
			String reason = "Malformed lock id '" + id + "': pass the id the lock listing shows";
			throw new InvalidEndpointRequestException(reason, reason);
		}
		return release(lockPrefix() + "{" + tag + "}", KeyScan.unescape(tag), who);
	}

	private boolean release(String lock, String key, String who) {
		boolean held = this.runner.execute(FORCE_RELEASE, List.of(lock, lock + ":waiters")) == 1;
		logger.warn("Lock '" + key + "' (" + lock + ") force-released by " + who + " through the redkit endpoint"
				+ (held ? "" : "; it was not held"));
		return held;
	}

	private String lockPrefix() {
		return this.keyspace.key("lock").build() + ":";
	}

}
