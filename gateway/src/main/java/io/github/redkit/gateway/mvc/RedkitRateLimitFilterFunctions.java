package io.github.redkit.gateway.mvc;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;

import io.github.redkit.ratelimit.RateLimiter;
import io.github.redkit.ratelimit.web.CountedStatuses;
import org.jspecify.annotations.Nullable;

import org.springframework.cloud.gateway.server.mvc.common.Configurable;
import org.springframework.cloud.gateway.server.mvc.common.Shortcut;
import org.springframework.cloud.gateway.server.mvc.filter.SimpleFilterSupplier;
import org.springframework.web.servlet.function.HandlerFilterFunction;
import org.springframework.web.servlet.function.ServerRequest;
import org.springframework.web.servlet.function.ServerResponse;

/**
 * Redkit's rate limits on Spring Cloud Gateway Server MVC routes, in the manner of the
 * gateway's own {@code FilterFunctions}: a route names one or several limits of
 * {@code redkit.rate-limit.limits} and who a request is counted for, and its filter takes
 * the request's permits of every limit for every identifier before the route's handler
 * runs. An allowed response carries the IETF draft-11 {@code RateLimit} and
 * {@code RateLimit-Policy} fields; a refused request is answered {@code 429} with
 * {@code Retry-After}, the fields and the draft's {@code quota-exceeded} problem, as a
 * refused {@code @RateLimited} call is; a request Redis cannot decide follows
 * {@code redkit.rate-limit.failure-mode}: {@code allow} lets it through, {@code deny}
 * answers {@code 503} with {@code Retry-After}. In YAML the filter is
 * {@code RedkitRateLimit=api} (several limits: {@code RedkitRateLimit=api,daily}), or
 * {@code name: RedkitRateLimit} with the arguments of {@link RateLimitConfig}.
 */
public final class RedkitRateLimitFilterFunctions {

	private RedkitRateLimitFilterFunctions() {
	}

	/**
	 * A filter that takes one permit of every named limit per request, counted for the
	 * principal's name or else the client address.
	 * @param limits the limits under {@code redkit.rate-limit.limits}, all of which must
	 * allow the request
	 * @return the filter
	 */
	@Shortcut(type = Shortcut.Type.LIST, fieldOrder = "limits")
	public static HandlerFilterFunction<ServerResponse, ServerResponse> redkitRateLimit(String... limits) {
		return redkitRateLimit((config) -> config.setLimits(List.of(limits)));
	}

	/**
	 * A filter configured in Java.
	 * @param configurer sets the limits, the cost and who a request is counted for
	 * @return the filter
	 */
	public static HandlerFilterFunction<ServerResponse, ServerResponse> redkitRateLimit(
			Consumer<RateLimitConfig> configurer) {
		RateLimitConfig config = new RateLimitConfig();
		configurer.accept(config);
		return redkitRateLimit(config);
	}

	/**
	 * A filter configured by a route's arguments in YAML ({@code limits}, {@code cost},
	 * {@code keys}, {@code count-statuses}).
	 * @param config the arguments
	 * @return the filter
	 */
	@Configurable
	public static HandlerFilterFunction<ServerResponse, ServerResponse> redkitRateLimit(RateLimitConfig config) {
		Function<ServerRequest, List<String>> keyResolver = config.getKeyResolver();
		return new RateLimitFilter(config.getLimits(), config.getCost(),
				(keyResolver != null) ? keyResolver : RequestKeys.of(config.getKeys()),
				CountedStatuses.of(config.getCountStatuses()), config.getRateLimiter());
	}

	/**
	 * A route's arguments: the limits, the permits a request takes, and who it is counted
	 * for.
	 */
	public static class RateLimitConfig {

		/**
		 * The limits under {@code redkit.rate-limit.limits}; every one must allow a
		 * request.
		 */
		private List<String> limits = new ArrayList<>();

		/**
		 * Permits a request takes of each limit.
		 */
		private int cost = 1;

		/**
		 * Who a request is counted for, one form per identifier ({@code ip},
		 * {@code header:<name>}, {@code principal}, {@code none} or
		 * {@code principal-or-ip}); every identifier must be under each limit.
		 */
		private List<String> keys = new ArrayList<>(List.of(RequestKeys.PRINCIPAL_OR_IP));

		/**
		 * The statuses whose answers count ({@code 401}, {@code 403}, a class such as
		 * {@code 5xx}); the permits of any other answer are given back. Empty: every
		 * answer counts.
		 */
		private List<String> countStatuses = new ArrayList<>();

		private @Nullable Function<ServerRequest, List<String>> keyResolver;

		private @Nullable RateLimiter rateLimiter;

		public List<String> getLimits() {
			return this.limits;
		}

		public RateLimitConfig setLimits(List<String> limits) {
			this.limits = limits;
			return this;
		}

		public int getCost() {
			return this.cost;
		}

		public RateLimitConfig setCost(int cost) {
			this.cost = cost;
			return this;
		}

		public List<String> getKeys() {
			return this.keys;
		}

		public RateLimitConfig setKeys(List<String> keys) {
			this.keys = keys;
			return this;
		}

		public List<String> getCountStatuses() {
			return this.countStatuses;
		}

		public RateLimitConfig setCountStatuses(List<String> countStatuses) {
			this.countStatuses = countStatuses;
			return this;
		}

		public @Nullable Function<ServerRequest, List<String>> getKeyResolver() {
			return this.keyResolver;
		}

		/**
		 * Resolves a request's identifiers in Java, in place of {@link #getKeys() keys}
		 * (see {@link RequestKeys}); a resolver that finds none gets the request a
		 * {@code 403}.
		 * @param keyResolver the resolver
		 * @return this config
		 */
		public RateLimitConfig setKeyResolver(@Nullable Function<ServerRequest, List<String>> keyResolver) {
			this.keyResolver = keyResolver;
			return this;
		}

		public @Nullable RateLimiter getRateLimiter() {
			return this.rateLimiter;
		}

		/**
		 * The rate limiter that decides; by default the application context's
		 * {@link RateLimiter}, found on the first request.
		 * @param rateLimiter the rate limiter
		 * @return this config
		 */
		public RateLimitConfig setRateLimiter(@Nullable RateLimiter rateLimiter) {
			this.rateLimiter = rateLimiter;
			return this;
		}

	}

	/**
	 * Makes {@code RedkitRateLimit} known to the gateway's YAML routes (a bean, as the
	 * gateway's own suppliers are).
	 */
	public static class FilterSupplier extends SimpleFilterSupplier {

		/**
		 * Supplies the filter functions of {@link RedkitRateLimitFilterFunctions}.
		 */
		public FilterSupplier() {
			super(RedkitRateLimitFilterFunctions.class);
		}

		/**
		 * The YAML forms, the shortcut first: the gateway takes the first form a route's
		 * arguments match, in this order, and the arguments form matches any arguments
		 * ({@code Class.getMethods()}, which the gateway's own supplier lists, has no
		 * order).
		 */
		@Override
		public Collection<Method> get() {
			try {
				return List.of(RedkitRateLimitFilterFunctions.class.getMethod("redkitRateLimit", String[].class),
						RedkitRateLimitFilterFunctions.class.getMethod("redkitRateLimit", RateLimitConfig.class));
			}
			catch (NoSuchMethodException ex) {
				throw new IllegalStateException(ex);
			}
		}

	}

}
