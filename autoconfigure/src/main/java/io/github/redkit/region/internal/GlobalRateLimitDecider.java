package io.github.redkit.region.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import io.github.redkit.core.internal.LuaScript;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.ratelimit.RateLimitAlgorithm;
import io.github.redkit.ratelimit.RateLimitCall;
import io.github.redkit.ratelimit.RateLimitDecider;
import io.github.redkit.ratelimit.RateLimitPolicy;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * Decides the rate limits marked global: like a sliding window, by
 * {@code ratelimit_global_window}, on the local Redis, over every region's calls as this
 * region sees them, and queued in the region's outbox in the same call. All identifiers
 * of a limit are in the shard of the limit's name, so that one call decides them all.
 */
public final class GlobalRateLimitDecider implements RateLimitDecider {

	private static final LuaScript<byte[]> SCRIPT = LuaScript.load("ratelimit_global_window", byte[].class);

	private final RedisScriptRunner runner;

	private final RegionOutbox outbox;

	private final Set<String> names;

	private final byte[][] region;

	/**
	 * Creates the decider.
	 * @param runner runs the script on this region's Redis
	 * @param outbox this region's outbox
	 * @param names the named limits marked global, each a sliding window
	 */
	public GlobalRateLimitDecider(RedisScriptRunner runner, RegionOutbox outbox, Set<String> names) {
		this.runner = runner;
		this.outbox = outbox;
		this.names = Set.copyOf(names);
		this.region = new byte[][] { ascii(outbox.region()), ascii(Long.toString(outbox.maxLength())) };
	}

	@Override
	public Set<String> limitNames() {
		return this.names;
	}

	@Override
	public void check(String limitName, @Nullable RateLimitPolicy policy) {
		String property = "redkit.rate-limit.limits." + limitName + ".global";
		Assert.isTrue(policy != null, () -> property + " marks a limit that is not configured");
		RateLimitAlgorithm algorithm = policy.algorithm();
		Assert.isTrue(algorithm == RateLimitAlgorithm.SLIDING_WINDOW,
				() -> property + " needs the sliding-window algorithm (was " + algorithm.id() + ")");
	}

	/** Decides on the local Redis, every identifier of the call in one script. */
	@Override
	public CompletableFuture<byte[]> decide(RateLimitCall call) {
		List<String> keys = new ArrayList<>(call.identifiers().size() + 2);
		keys.add(this.outbox.sequence(call.limitName()));
		keys.add(this.outbox.stream(call.limitName()));
		List<String> names = new ArrayList<>(call.identifiers().size());
		for (String identifier : call.identifiers()) {
			String name = counterName(call.limitName(), identifier);
			names.add(name);
			keys.add(this.outbox.counter(call.limitName(), name));
		}
		byte[][] args = new byte[5 + names.size()][];
		args[0] = call.numbers();
		args[1] = call.numbersFormat();
		args[2] = ascii(Integer.toString(call.policy().subWindows()));
		args[3] = this.region[0];
		args[4] = this.region[1];
		for (int i = 0; i < names.size(); i++) {
			args[5 + i] = ascii(names.get(i));
		}
		return this.runner.executeAsync(SCRIPT, call.timeout(), keys, args);
	}

	/**
	 * The regional counter of a limit and identifier: a digest, so that the script can
	 * append the window and sub-window to it and to its key alike (no character of it is
	 * escaped), and so that no limit and identifier pair reads like another.
	 * @param limit the limit's name
	 * @param identifier the identifier
	 * @return the counter's name; its key is {@code RegionOutbox.counter(limit, name)}
	 */
	public static String counterName(String limit, String identifier) {
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
