package io.github.redkit.lock.actuate;

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

import io.github.redkit.actuate.EndpointSettings;
import io.github.redkit.actuate.KeyScan;
import io.github.redkit.actuate.RedkitEndpointSection;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.internal.LuaScript;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.lock.internal.HeldLocks;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.core.Ordered;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The {@code locks} section of the {@code redkit} endpoint: held locks, found with
 * {@code SCAN} on the locks' prefix (never {@code KEYS}), one bounded page at a time, on
 * every topology; and, with {@code DELETE locks/{id}}, their forced release through the
 * lock's own release script ({@link HeldLocks}). A lock's owner token is read to name the
 * holder's instance (its first, per-process part) and never shown.
 */
public final class LockEndpointSection implements RedkitEndpointSection, Ordered {

	/** After rate limits. */
	public static final int ORDER = 200;

	private static final Log logger = LogFactory.getLog(LockEndpointSection.class);

	@SuppressWarnings("rawtypes")
	private static final LuaScript<List> READ = LuaScript.load("lock_list", List.class);

	private static final Pattern STORED_TAG = Pattern.compile("[A-Za-z0-9._@%#-]{1,128}");

	private final HeldLocks locks;

	private final RedisScriptRunner runner;

	private final RedisConnectionFactory connectionFactory;

	private final EndpointSettings settings;

	/**
	 * Creates the section.
	 * @param locks where the locks are stored, and their forced release
	 * @param runner runs the read script
	 * @param settings the endpoint's settings
	 */
	public LockEndpointSection(HeldLocks locks, RedisScriptRunner runner, EndpointSettings settings) {
		this.locks = locks;
		this.runner = runner;
		this.connectionFactory = runner.connectionFactory();
		this.settings = settings;
	}

	@Override
	public String name() {
		return "locks";
	}

	@Override
	public String capability() {
		return "lock";
	}

	@Override
	public int getOrder() {
		return ORDER;
	}

	/**
	 * One page of held locks: {@code SCAN} calls with {@code COUNT} until {@code count}
	 * locks are found, the keyspace is walked, or the page's deadline passes (see
	 * {@link KeyScan}); then the page's owners, leases and fencing tokens in one script
	 * call (on a cluster, one per lock, sent together); a lock nobody holds (its record
	 * stays an hour past its lease, to keep its fencing token) is left out, so a page may
	 * list fewer than {@code count}. Each lock has an opaque {@code id} that
	 * {@link #forceReleaseById} takes.
	 * @param cursor where the previous page stopped ({@code null} or {@code 0} to start)
	 * @param count how many locks at most
	 * @return the locks and the cursor of the next page ({@code 0} when done)
	 */
	@Override
	public Map<String, Object> read(@Nullable String cursor, @Nullable Integer count) {
		int wanted = this.settings.pageSize(count, 50);
		String lockPrefix = this.locks.prefix();
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

	/**
	 * {@code locks/{id}}: force-releases the lock of that {@code id}.
	 */
	@Override
	public @Nullable Object delete(List<String> path, String operator) {
		return (path.size() == 1) ? Map.of("released", forceReleaseById(path.get(0), operator)) : null;
	}

	// per lock: owner token, remaining lease, fencing token; the second key is the
	// fencing counter of the previous layout, read only for a lock of that layout
	@SuppressWarnings("rawtypes")
	private List<Object> details(List<String> keys) {
		if (keys.isEmpty()) {
			return List.of();
		}
		Duration timeout = this.settings.scanTimeout();
		if (!this.runner.isCluster()) {
			List<String> lockAndFence = new ArrayList<>(2 * keys.size());
			keys.forEach((key) -> Collections.addAll(lockAndFence, key, this.locks.fencingCounter(key)));
			return RedisScriptRunner.await(this.runner.executeAsync(READ, lockAndFence), timeout, "the held locks");
		}
		List<CompletableFuture<List>> calls = keys.stream()
			.map((key) -> this.runner.executeAsync(READ, List.of(key, this.locks.fencingCounter(key))))
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
	 * Frees a lock whoever holds it, and wakes its waiters. Logged at WARN.
	 * @param key the lock's key, as the application passes it to the lock
	 * @param who the operator, if known
	 * @return whether a lock was held
	 */
	public boolean forceRelease(String key, String who) {
		return release(this.locks.storedKey(key), key, who);
	}

	/**
	 * Frees a lock listed by {@link #read(String, Integer)} whoever holds it, and wakes
	 * its waiters: the way to release a lock whose key is hashed (longer than
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
		return release(this.locks.prefix() + "{" + tag + "}", KeyScan.unescape(tag), who);
	}

	private boolean release(String lock, String key, String who) {
		boolean held = this.locks.forceRelease(lock);
		logger.warn("Lock '" + key + "' (" + lock + ") force-released by " + who + " through the redkit endpoint"
				+ (held ? "" : "; it was not held"));
		return held;
	}

}
