package io.github.redkit.gateway;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.redkit.core.web.QuotaHeaders;
import io.github.redkit.ratelimit.RateLimitDecision;
import io.github.redkit.ratelimit.RateLimitPolicy;
import io.github.redkit.ratelimit.RateLimiterUnavailableException;
import io.github.redkit.ratelimit.ReactiveRateLimiter;
import io.github.redkit.ratelimit.web.RateLimitHeaders;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import org.springframework.cloud.gateway.filter.ratelimit.AbstractRateLimiter;
import org.springframework.cloud.gateway.support.ConfigurationService;
import org.springframework.http.HttpHeaders;

/**
 * A Spring Cloud Gateway {@code RateLimiter} on Redkit's named limits: each route names a
 * limit of {@code redkit.rate-limit.limits} (any number of windows, one round trip) and
 * the cost of a request, and the answer carries the IETF draft-11 {@code RateLimit} and
 * {@code RateLimit-Policy} fields (and {@code Retry-After} when refused) instead of the
 * gateway's {@code X-RateLimit-*} ones. A key from {@link RedkitKeyResolvers#all} stands
 * for several identifiers, all of which must be under the limit. When Redis cannot be
 * asked, Redkit's failure mode applies: {@code allow} lets the request through,
 * {@code deny} refuses it with the gateway's own refusal status, {@code local} decides it
 * on this instance and marks the answer {@code Redkit-Degraded: local}.
 */
public class RedkitGatewayRateLimiter extends AbstractRateLimiter<RedkitGatewayRateLimiter.Config> {

	/**
	 * The prefix of this limiter's arguments in a route's {@code RequestRateLimiter}
	 * filter, e.g. {@code redkit-rate-limiter.limit: api}.
	 */
	public static final String CONFIGURATION_PROPERTY_NAME = "redkit-rate-limiter";

	private final ReactiveRateLimiter rateLimiter;

	/**
	 * Creates a limiter whose routes are configured by the gateway's filter arguments.
	 * @param rateLimiter Redkit's reactive rate limiter
	 * @param configurationService the gateway's configuration service, {@code null} to
	 * configure routes only through {@link #getConfig()}
	 */
	public RedkitGatewayRateLimiter(ReactiveRateLimiter rateLimiter,
			@Nullable ConfigurationService configurationService) {
		super(Config.class, CONFIGURATION_PROPERTY_NAME, configurationService);
		this.rateLimiter = rateLimiter;
	}

	@Override
	public Mono<Response> isAllowed(String routeId, String id) {
		Config config = getConfig().get(routeId);
		// a route without arguments is limited by the limit named like the route
		String limitName = (config != null && config.getLimit() != null) ? config.getLimit() : routeId;
		int cost = (config != null) ? config.getCost() : 1;
		List<String> keys = RedkitKeyResolvers.decode(id);
		String partitionKey = QuotaHeaders.partitionKey(keys);
		return this.rateLimiter.tryAcquire(limitName, keys, cost)
			.map((decision) -> new Response(decision.allowed(), headers(limitName, decision, partitionKey)))
			.onErrorResume(RateLimiterUnavailableException.class, (ex) -> Mono.just(new Response(false,
					Map.of(HttpHeaders.RETRY_AFTER, retryAfter(QuotaHeaders.seconds(ex.getRetryAfter()))))));
	}

	private static Map<String, String> headers(String limitName, RateLimitDecision decision,
			@Nullable String partitionKey) {
		Map<String, String> headers = new LinkedHashMap<>();
		RateLimitPolicy policy = decision.policy();
		if (policy != null) {
			headers.put(QuotaHeaders.POLICY, RateLimitHeaders.policy(limitName, policy, partitionKey));
		}
		String state = RateLimitHeaders.state(limitName, decision, partitionKey);
		if (state != null) {
			headers.put(QuotaHeaders.STATE, state);
		}
		RateLimitHeaders.degraded(decision, headers::put);
		if (!decision.allowed()) {
			headers.put(HttpHeaders.RETRY_AFTER, retryAfter(QuotaHeaders.seconds(decision.retryAfter())));
		}
		return headers;
	}

	private static String retryAfter(long seconds) {
		// a refused client never hears "retry now"
		return String.valueOf(Math.max(seconds, 1));
	}

	/**
	 * A route's arguments: {@code redkit-rate-limiter.limit} and
	 * {@code redkit-rate-limiter.cost}.
	 */
	public static class Config {

		/**
		 * The name of the limit under {@code redkit.rate-limit.limits}; the route's id
		 * when unset.
		 */
		private @Nullable String limit;

		/**
		 * Permits a request takes.
		 */
		private int cost = 1;

		public @Nullable String getLimit() {
			return this.limit;
		}

		public Config setLimit(@Nullable String limit) {
			this.limit = limit;
			return this;
		}

		public int getCost() {
			return this.cost;
		}

		public Config setCost(int cost) {
			this.cost = cost;
			return this;
		}

	}

}
