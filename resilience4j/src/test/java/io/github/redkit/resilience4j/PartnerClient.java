package io.github.redkit.resilience4j;

import io.github.resilience4j.ratelimiter.RequestNotPermitted;
import io.github.resilience4j.ratelimiter.annotation.RateLimiter;
import reactor.core.publisher.Mono;

/**
 * A user's client of a partner's API, limited with Resilience4j's own annotation: the
 * limit behind it is Redkit's, shared by every instance. Its fallbacks are public
 * ({@link FallbackMethodsTests}).
 */
public class PartnerClient {

	// tag::client[]
	@RateLimiter(name = "partnerApi", fallbackMethod = "quotaUsedUp")
	public String quote(String sku) {
		return "quote for " + sku;
	}

	public String quotaUsedUp(String sku, RequestNotPermitted ex) {
		return "no quote for " + sku + " now";
	}
	// end::client[]

	@RateLimiter(name = "partnerApiReactive", fallbackMethod = "quoteLaterUsedUp")
	public Mono<String> quoteLater(String sku) {
		return Mono.fromSupplier(() -> "quote for " + sku);
	}

	public Mono<String> quoteLaterUsedUp(String sku, RequestNotPermitted ex) {
		return Mono.just("no quote for " + sku + " now");
	}

	@RateLimiter(name = "metered")
	public String metered() {
		return "metered";
	}

}
