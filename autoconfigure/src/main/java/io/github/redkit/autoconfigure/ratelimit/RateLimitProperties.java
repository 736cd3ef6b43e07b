package io.github.redkit.autoconfigure.ratelimit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.LinkedHashSet;

import io.github.redkit.ratelimit.RateLimitAlgorithm;
import io.github.redkit.ratelimit.RateLimitFailureMode;
import io.github.redkit.ratelimit.RateLimitPolicy;
import io.github.redkit.ratelimit.internal.RateLimitedAdvisor;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Rate limiting: named limits and what to do when Redis cannot be reached.
 */
@ConfigurationProperties("redkit.rate-limit")
public class RateLimitProperties {

	/**
	 * Whether rate limiting (the RateLimiter bean and @RateLimited) is enabled.
	 */
	private boolean enabled = true;

	/**
	 * What to do when Redis cannot be reached in time: 'allow' lets calls through (fail
	 * open), 'deny' refuses them (fail closed, 503 in Spring MVC), 'local' decides them
	 * on each instance with each window's limit divided by the number of instances.
	 */
	private RateLimitFailureMode failureMode = RateLimitFailureMode.ALLOW;

	/**
	 * How long a decision waits for Redis before the failure mode applies.
	 */
	private Duration timeout = Duration.ofMillis(500);

	/**
	 * How long after a Redis failure the failure mode applies without asking Redis, so
	 * that an outage does not add the timeout to every call. 0 asks Redis every time.
	 */
	private Duration failureCooldown = Duration.ofSeconds(1);

	/**
	 * Whether allowed HTTP responses carry the RateLimit and RateLimit-Policy headers
	 * (refused ones always do).
	 */
	private boolean responseHeaders = true;

	/**
	 * Order of the @RateLimited interceptor; the default runs it before idempotency,
	 * locks and transactions.
	 */
	private int order = RateLimitedAdvisor.DEFAULT_ORDER;

	/**
	 * Named limits, used by @RateLimited("name") and RateLimiter.tryAcquire("name", ...).
	 */
	private Map<String, Limit> limits = new LinkedHashMap<>();

	/**
	 * WebFlux route limits, applied by a filter without annotations.
	 */
	private final Web web = new Web();

	/**
	 * The in-process limiter of the 'local' failure mode.
	 */
	private final Local local = new Local();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public RateLimitFailureMode getFailureMode() {
		return this.failureMode;
	}

	public void setFailureMode(RateLimitFailureMode failureMode) {
		this.failureMode = failureMode;
	}

	public Duration getTimeout() {
		return this.timeout;
	}

	public void setTimeout(Duration timeout) {
		this.timeout = timeout;
	}

	public Duration getFailureCooldown() {
		return this.failureCooldown;
	}

	public void setFailureCooldown(Duration failureCooldown) {
		this.failureCooldown = failureCooldown;
	}

	public boolean isResponseHeaders() {
		return this.responseHeaders;
	}

	public void setResponseHeaders(boolean responseHeaders) {
		this.responseHeaders = responseHeaders;
	}

	public int getOrder() {
		return this.order;
	}

	public void setOrder(int order) {
		this.order = order;
	}

	public Map<String, Limit> getLimits() {
		return this.limits;
	}

	/**
	 * The names of the named limits marked {@code global}, counted in every region.
	 * @return the names, in the order of the limits
	 */
	public Set<String> globalLimitNames() {
		Set<String> global = new LinkedHashSet<>();
		this.limits.forEach((name, limit) -> {
			if (limit.isGlobal()) {
				global.add(name);
			}
		});
		return global;
	}

	public void setLimits(Map<String, Limit> limits) {
		this.limits = limits;
	}

	public Local getLocal() {
		return this.local;
	}

	public Web getWeb() {
		return this.web;
	}

	/**
	 * One named limit.
	 */
	public static class Limit {

		/**
		 * Counting algorithm: sliding-window, sliding-log, fixed-window or token-bucket.
		 */
		private RateLimitAlgorithm algorithm = RateLimitAlgorithm.SLIDING_WINDOW;

		/**
		 * Sub-windows each sliding-window period is split into (1 to 100): a permit comes
		 * back at most one sub-window later than an exact log would give it back.
		 */
		private int subWindows = RateLimitPolicy.DEFAULT_SUB_WINDOWS;

		/**
		 * Windows, each a limit per period; a call must be under every one.
		 */
		private List<Window> windows = new ArrayList<>();

		/**
		 * Whether the limit counts the calls of every region (needs redkit.regions.local
		 * and the sliding-window algorithm); each region decides on its own Redis over
		 * what the others have shipped so far.
		 */
		private boolean global;

		/**
		 * A local allowance for a hot identifier: batches of permits taken from Redis in
		 * one decision and handed out by this instance (off unless a size is given).
		 */
		private final LocalAllowance localAllowance = new LocalAllowance();

		public RateLimitAlgorithm getAlgorithm() {
			return this.algorithm;
		}

		public void setAlgorithm(RateLimitAlgorithm algorithm) {
			this.algorithm = algorithm;
		}

		public int getSubWindows() {
			return this.subWindows;
		}

		public void setSubWindows(int subWindows) {
			this.subWindows = subWindows;
		}

		public boolean isGlobal() {
			return this.global;
		}

		public void setGlobal(boolean global) {
			this.global = global;
		}

		public List<Window> getWindows() {
			return this.windows;
		}

		public void setWindows(List<Window> windows) {
			this.windows = windows;
		}

		public LocalAllowance getLocalAllowance() {
			return this.localAllowance;
		}

	}

	/**
	 * A limit's local allowance.
	 */
	public static class LocalAllowance {

		/**
		 * Permits a batch takes from Redis in one decision and this instance hands out to
		 * the calls of one identifier itself; 0 for none. At most the smallest window's
		 * limit; sliding-window and fixed-window limits only.
		 */
		private int size;

		/**
		 * The longest a batch is handed out before what is left of it is given back; a
		 * batch also ends with the sub-window (fixed window: the window) it was counted
		 * in.
		 */
		private Duration maxAge = Duration.ofMillis(100);

		public int getSize() {
			return this.size;
		}

		public void setSize(int size) {
			this.size = size;
		}

		public Duration getMaxAge() {
			return this.maxAge;
		}

		public void setMaxAge(Duration maxAge) {
			this.maxAge = maxAge;
		}

	}

	/**
	 * A limit per period.
	 */
	public static class Window {

		/**
		 * Calls allowed per period (for token-bucket: the bucket size).
		 */
		private long limit;

		/**
		 * The period, e.g. 1s, 1m, 1h.
		 */
		private @Nullable Duration period;

		public long getLimit() {
			return this.limit;
		}

		public void setLimit(long limit) {
			this.limit = limit;
		}

		public @Nullable Duration getPeriod() {
			return this.period;
		}

		public void setPeriod(@Nullable Duration period) {
			this.period = period;
		}

	}

	/**
	 * Rate limits of WebFlux routes, without annotations.
	 */
	public static class Web {

		/**
		 * Routes whose requests take permits of a named limit before any handler runs;
		 * the first route that matches a request applies. Each has a 'path' (a
		 * PathPattern, required), a 'limit' (a name under redkit.rate-limit.limits,
		 * required), a 'key' (ip, header:<name>, principal or none; default ip),
		 * 'methods' (default every method), a 'cost' (default 1) and 'count-statuses'
		 * (default every status). The filter is on only when a route is configured in a
		 * reactive web application.
		 */
		private List<Route> routes = new ArrayList<>();

		/**
		 * Order of the route filter among the application's WebFilters (after Spring
		 * Security's, at -100, by default).
		 */
		private int order = 0;

		public List<Route> getRoutes() {
			return this.routes;
		}

		public void setRoutes(List<Route> routes) {
			this.routes = routes;
		}

		public int getOrder() {
			return this.order;
		}

		public void setOrder(int order) {
			this.order = order;
		}

	}

	/**
	 * One rate-limited route.
	 */
	public static class Route {

		/**
		 * Path pattern of the requests the route limits, in Spring's PathPattern syntax,
		 * e.g. /api/**.
		 */
		private @Nullable String path;

		/**
		 * Named limit, under redkit.rate-limit.limits, whose permits the requests take.
		 */
		private @Nullable String limit;

		/**
		 * Who a request is counted for: 'ip' (the client address), 'header:<name>' (a
		 * request header's value), 'principal' (the authenticated name) or 'none' (one
		 * partition for every request). Requests without the identifier share one
		 * partition, so leaving it out never escapes the limit.
		 */
		private String key = "ip";

		/**
		 * HTTP methods the route limits, e.g. POST; every method when empty.
		 */
		private List<String> methods = new ArrayList<>();

		/**
		 * Permits each request takes.
		 */
		private int cost = 1;

		/**
		 * HTTP statuses whose responses count, e.g. 401, 403 or a class such as 5xx: the
		 * permits are taken before the handler runs and given back when the response has
		 * another status. Every response counts when empty.
		 */
		private List<String> countStatuses = new ArrayList<>();

		public @Nullable String getPath() {
			return this.path;
		}

		public void setPath(@Nullable String path) {
			this.path = path;
		}

		public @Nullable String getLimit() {
			return this.limit;
		}

		public void setLimit(@Nullable String limit) {
			this.limit = limit;
		}

		public String getKey() {
			return this.key;
		}

		public void setKey(String key) {
			this.key = key;
		}

		public List<String> getMethods() {
			return this.methods;
		}

		public void setMethods(List<String> methods) {
			this.methods = methods;
		}

		public int getCost() {
			return this.cost;
		}

		public void setCost(int cost) {
			this.cost = cost;
		}

		public List<String> getCountStatuses() {
			return this.countStatuses;
		}

		public void setCountStatuses(List<String> countStatuses) {
			this.countStatuses = countStatuses;
		}

	}

	/**
	 * The in-process limiter that decides while Redis is away, with failure-mode 'local'.
	 */
	public static class Local {

		/**
		 * Instances sharing the limits: each window's limit is divided by it (rounded
		 * down, at least 1) while Redis is away. Unset: learnt from the instances'
		 * heartbeats in Redis, 1 until one is heard.
		 */
		private @Nullable Integer expectedInstances;

		/**
		 * Most identifiers the local limiter keeps at once, all limits together; beyond
		 * it the least used are forgotten.
		 */
		private long maxKeys = 100_000;

		/**
		 * How often each instance announces itself in Redis, so that all know how many
		 * share the limits; one missing three heartbeats is no longer counted.
		 */
		private Duration heartbeat = Duration.ofSeconds(5);

		public @Nullable Integer getExpectedInstances() {
			return this.expectedInstances;
		}

		public void setExpectedInstances(@Nullable Integer expectedInstances) {
			this.expectedInstances = expectedInstances;
		}

		public long getMaxKeys() {
			return this.maxKeys;
		}

		public void setMaxKeys(long maxKeys) {
			this.maxKeys = maxKeys;
		}

		public Duration getHeartbeat() {
			return this.heartbeat;
		}

		public void setHeartbeat(Duration heartbeat) {
			this.heartbeat = heartbeat;
		}

	}

}
