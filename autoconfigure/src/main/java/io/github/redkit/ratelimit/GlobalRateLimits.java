package io.github.redkit.ratelimit;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import io.github.redkit.core.LuaScript;
import io.github.redkit.core.RedisScriptRunner;
import io.github.redkit.region.RegionOutbox;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * The limits marked global: decided like a sliding window by
 * {@code ratelimit_global_window}, on the local Redis, over every region's calls as this
 * region sees them, and queued in the region's outbox in the same call. All identifiers
 * of a limit are in the shard of the limit's name, so that one call decides them all.
 */
final class GlobalRateLimits {

	private static final LuaScript<byte[]> SCRIPT = LuaScript.load("ratelimit_global_window", byte[].class);

	private final RedisScriptRunner runner;

	private final RegionOutbox outbox;

	private final Set<String> names;

	private final byte[][] region;

	GlobalRateLimits(RedisScriptRunner runner, RegionOutbox outbox, Set<String> names) {
		this.runner = runner;
		this.outbox = outbox;
		this.names = Set.copyOf(names);
		this.region = new byte[][] { ascii(outbox.region()), ascii(Long.toString(outbox.maxLength())) };
	}

	/**
	 * Checks that every global limit can be counted across regions.
	 * @param limits the named limits
	 */
	void checkAll(Map<String, PreparedLimit> limits) {
		this.names.forEach((name) -> check(name, limits.get(name)));
	}

	/**
	 * Checks that a global limit can be counted across regions.
	 * @param name the limit's name
	 * @param limit the limit, {@code null} when it is not configured
	 */
	void check(String name, @Nullable PreparedLimit limit) {
		String property = "redkit.rate-limit.limits." + name + ".global";
		Assert.isTrue(limit != null, () -> property + " marks a limit that is not configured");
		RateLimitAlgorithm algorithm = limit.policy().algorithm();
		Assert.isTrue(algorithm == RateLimitAlgorithm.SLIDING_WINDOW,
				() -> property + " needs the sliding-window algorithm (was " + algorithm.id() + ")");
	}

	boolean covers(String limitName) {
		return this.names.contains(limitName);
	}

	/** Decides on the local Redis, every identifier of the call in one script. */
	CompletableFuture<byte[]> decide(PreparedLimit limit, List<String> identifiers, int cost, Duration timeout) {
		List<String> keys = new ArrayList<>(identifiers.size() + 2);
		keys.add(this.outbox.sequence(limit.name()));
		keys.add(this.outbox.stream(limit.name()));
		List<String> names = new ArrayList<>(identifiers.size());
		for (String identifier : identifiers) {
			Assert.hasText(identifier, () -> "Rate limit '" + limit.name() + "': a key must not be null or empty");
			String name = counterName(limit.name(), identifier);
			names.add(name);
			keys.add(this.outbox.counter(limit.name(), name));
		}
		byte[][] decision = limit.arguments(cost);
		byte[][] args = new byte[5 + names.size()][];
		args[0] = decision[0];
		args[1] = decision[1];
		args[2] = ascii(Integer.toString(limit.policy().subWindows()));
		args[3] = this.region[0];
		args[4] = this.region[1];
		for (int i = 0; i < names.size(); i++) {
			args[5 + i] = ascii(names.get(i));
		}
		return this.runner.executeAsync(SCRIPT, timeout, keys, args);
	}

	/**
	 * The regional counter of a limit and identifier: a digest, so that the script can
	 * append the window and sub-window to it and to its key alike (no character of it is
	 * escaped), and so that no limit and identifier pair reads like another.
	 */
	static String counterName(String limit, String identifier) {
		try {
			byte[] digest = MessageDigest.getInstance("SHA-256")
				.digest((limit.length() + ":" + limit + ":" + identifier).getBytes(StandardCharsets.UTF_8));
			return "rl." + Base64.getUrlEncoder().withoutPadding().encodeToString(digest);
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-256 is required by every JVM", ex);
		}
	}

	private static byte[] ascii(String text) {
		return text.getBytes(StandardCharsets.US_ASCII);
	}

}
