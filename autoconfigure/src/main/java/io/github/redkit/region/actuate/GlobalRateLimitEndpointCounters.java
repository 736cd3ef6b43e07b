package io.github.redkit.region.actuate;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import io.github.redkit.core.internal.LuaScript;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.ratelimit.RateLimitPolicy;
import io.github.redkit.ratelimit.RateLimitUsage;
import io.github.redkit.ratelimit.RateLimitWindow;
import io.github.redkit.ratelimit.actuate.GlobalRateLimitCounters;
import io.github.redkit.region.internal.GlobalRateLimitDecider;
import io.github.redkit.region.internal.RegionOutbox;

/**
 * The limits marked global on the {@code redkit} endpoint: read and reset in the regional
 * sub-window counters of this region's outbox, where they count. The reset raises this
 * region's slot of each counter and ships it through the outbox like a decision's, so the
 * counts read zero here at once and in every peer once it applies the entry.
 */
public final class GlobalRateLimitEndpointCounters implements GlobalRateLimitCounters {

	@SuppressWarnings("rawtypes")
	private static final LuaScript<List> USAGE = LuaScript.load("ratelimit_global_usage_read", List.class);

	private static final LuaScript<Long> RESET = LuaScript.load("ratelimit_global_reset", Long.class);

	private final RedisScriptRunner runner;

	private final RegionOutbox outbox;

	private final Set<String> names;

	/**
	 * Creates the counters.
	 * @param runner runs the scripts on the local Redis
	 * @param outbox this region's outbox
	 * @param names the limits marked global
	 */
	public GlobalRateLimitEndpointCounters(RedisScriptRunner runner, RegionOutbox outbox, Set<String> names) {
		this.runner = runner;
		this.outbox = outbox;
		this.names = Set.copyOf(names);
	}

	@Override
	public boolean covers(String limit) {
		return this.names.contains(limit);
	}

	@Override
	public List<RateLimitUsage.Window> usage(String limit, RateLimitPolicy policy, String key) {
		String counter = this.outbox.counter(limit, GlobalRateLimitDecider.counterName(limit, key));
		List<String> args = new ArrayList<>();
		args.add(Integer.toString(policy.subWindows()));
		policy.windows().forEach((window) -> args.add(Long.toString(window.period().toMillis())));
		List<?> reply = this.runner.execute(USAGE, List.of(counter), args.toArray(String[]::new));
		List<RateLimitUsage.Window> windows = new ArrayList<>();
		for (int j = 0; j < policy.windows().size(); j++) {
			RateLimitWindow window = policy.windows().get(j);
			long used = Math.min(((Number) reply.get(2 * j)).longValue(), window.limit());
			long resetsIn = (used > 0) ? ((Number) reply.get(2 * j + 1)).longValue() : 0;
			windows.add(new RateLimitUsage.Window(window.limit(), window.period(), used, window.limit() - used,
					Duration.ofMillis(resetsIn)));
		}
		return windows;
	}

	@Override
	public boolean reset(String limit, RateLimitPolicy policy, String key) {
		String name = GlobalRateLimitDecider.counterName(limit, key);
		List<String> args = new ArrayList<>();
		args.add(Integer.toString(policy.subWindows()));
		args.add(this.outbox.region());
		args.add(Long.toString(this.outbox.maxLength()));
		args.add(name);
		policy.windows().forEach((window) -> args.add(Long.toString(window.period().toMillis())));
		List<String> keys = List.of(this.outbox.sequence(limit), this.outbox.stream(limit),
				this.outbox.counter(limit, name));
		return this.runner.execute(RESET, keys, args.toArray(String[]::new)) > 0;
	}

}
