package io.github.redkit.region.internal;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;

import io.github.redkit.core.internal.LuaScript;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.core.internal.ReplayWindow;
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

	// sent again after a reconnect, a decision would count (and ship) again: dropped
	private static final LuaScript<byte[]> SCRIPT = LuaScript.load("ratelimit_global_window", byte[].class)
		.droppingReplays();

	private static final LuaScript<Long> REFUND = LuaScript.load("ratelimit_global_refund", Long.class).givingBack();

	private final RedisScriptRunner runner;

	// Lettuce's command timeout on this region's Redis: how long a give-back is
	// remembered depends on it (ReplayWindow.giveBackMarker)
	private final Duration commandTimeout;

	private final RegionOutbox outbox;

	private final Set<String> names;

	private final byte[][] region;

	/**
	 * Creates the decider.
	 * @param runner runs the script on this region's Redis
	 * @param outbox this region's outbox
	 * @param names the named limits marked global, each of an algorithm that
	 * {@linkplain RateLimitAlgorithm#countsAcrossRegions() counts across regions}
	 */
	public GlobalRateLimitDecider(RedisScriptRunner runner, RegionOutbox outbox, Set<String> names) {
		this.runner = runner;
		this.commandTimeout = ReplayWindow.commandTimeout(runner.connectionFactory());
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
		Assert.isTrue(algorithm.countsAcrossRegions(),
				() -> property + " needs the "
						+ Arrays.stream(RateLimitAlgorithm.values())
							.filter(RateLimitAlgorithm::countsAcrossRegions)
							.map(RateLimitAlgorithm::id)
							.collect(Collectors.joining(" or "))
						+ " algorithm (was " + algorithm.id() + ")");
	}

	/** Decides on the local Redis, every identifier of the call in one script. */
	@Override
	public CompletableFuture<byte[]> decide(RateLimitCall call) {
		return run(SCRIPT, call, call.numbers(), null, null);
	}

	/**
	 * Settles a call on the local Redis, queued for the other regions like a decision: an
	 * excess is charged by the decision script (a negative cost), the unused part given
	 * back in the sub-windows the call was decided in, once per settlement: a marker in
	 * the outbox's slot remembers it for {@link ReplayWindow#giveBackMarker}.
	 */
	@Override
	public CompletableFuture<Boolean> settle(RateLimitCall call, byte[] reply, long difference, String settlementId) {
		// the cost: negative, a charge of the excess; positive, the permits to give back
		ByteBuffer numbers = ByteBuffer.wrap(call.numbers().clone()).order(ByteOrder.LITTLE_ENDIAN);
		numbers.putDouble(0, -difference);
		if (difference > 0) {
			return run(SCRIPT, call, numbers.array(), null, null).thenApply((charged) -> true);
		}
		double decidedAt = ByteBuffer.wrap(reply).order(ByteOrder.LITTLE_ENDIAN).getDouble(40);
		// the marker extends the outbox's sequence, so it keeps its hash tag and its slot
		String marker = this.outbox.sequence(call.limitName()) + ":refund:" + settlementId;
		return run(REFUND, call, numbers.array(), ascii(Double.toString(decidedAt)), marker).thenApply((given) -> true);
	}

	private <T> CompletableFuture<T> run(LuaScript<T> script, RateLimitCall call, byte[] numbers,
			byte @Nullable [] decidedAt, @Nullable String marker) {
		List<String> keys = new ArrayList<>(call.identifiers().size() + 2);
		keys.add(this.outbox.sequence(call.limitName()));
		keys.add(this.outbox.stream(call.limitName()));
		List<byte[]> args = new ArrayList<>(call.identifiers().size() + 6);
		args.add(numbers);
		args.add(call.numbersFormat());
		args.add(ascii(Integer.toString(call.policy().subWindows())));
		args.add(this.region[0]);
		args.add(this.region[1]);
		if (decidedAt != null) {
			args.add(decidedAt);
		}
		for (String identifier : call.identifiers()) {
			String name = counterName(call.limitName(), identifier);
			args.add(ascii(name));
			keys.add(this.outbox.counter(call.limitName(), name));
		}
		if (marker != null) {
			keys.add(marker);
			args.add(ascii(Long.toString(ReplayWindow.giveBackMarker(this.commandTimeout, call.timeout()).toMillis())));
		}
		return this.runner.executeAsync(script, call.timeout(), keys, args.toArray(byte[][]::new));
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
