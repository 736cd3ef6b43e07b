package io.github.redkit.autoconfigure.idempotency;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.redkit.idempotency.internal.IdempotentStepAdvisor;
import io.github.redkit.idempotency.internal.IdempotentStepInterceptor;
import io.github.redkit.idempotency.web.IdempotencyKeyFilter;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

/**
 * Properties of idempotent steps ({@code @IdempotentStep}, {@code IdempotentSteps}).
 */
@ConfigurationProperties("redkit.idempotency")
public class IdempotencyProperties {

	/**
	 * Whether idempotent steps are enabled.
	 */
	private boolean enabled = true;

	/**
	 * How long an operation's steps and results are kept when the annotation names no
	 * ttl.
	 */
	private Duration ttl = Duration.ofHours(48);

	/**
	 * How long a claim holds a step while it runs; after it a crashed holder no longer
	 * blocks retries.
	 */
	private Duration inProgressLease = Duration.ofSeconds(30);

	/**
	 * Longest wait for Redis; then the call fails (steps fail closed).
	 */
	private Duration timeout = Duration.ofSeconds(2);

	/**
	 * Most elements an @IdempotentStep method returning a Flux records for replay; beyond
	 * it the step is abandoned and the Flux fails with StepResultTooLargeException.
	 */
	private int maxFluxElements = IdempotentStepInterceptor.DEFAULT_MAX_FLUX_ELEMENTS;

	/**
	 * Order of the @IdempotentStep advisor (rate limit, idempotency, lock, transaction).
	 */
	private int order = IdempotentStepAdvisor.DEFAULT_ORDER;

	/**
	 * HTTP Idempotency-Key handling of Spring MVC and WebFlux routes.
	 */
	private final Http http = new Http();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public Duration getTtl() {
		return this.ttl;
	}

	public void setTtl(Duration ttl) {
		this.ttl = ttl;
	}

	public Duration getInProgressLease() {
		return this.inProgressLease;
	}

	public void setInProgressLease(Duration inProgressLease) {
		this.inProgressLease = inProgressLease;
	}

	public Duration getTimeout() {
		return this.timeout;
	}

	public void setTimeout(Duration timeout) {
		this.timeout = timeout;
	}

	public int getMaxFluxElements() {
		return this.maxFluxElements;
	}

	public void setMaxFluxElements(int maxFluxElements) {
		this.maxFluxElements = maxFluxElements;
	}

	public int getOrder() {
		return this.order;
	}

	public void setOrder(int order) {
		this.order = order;
	}

	public Http getHttp() {
		return this.http;
	}

	/**
	 * HTTP {@code Idempotency-Key} handling (draft-ietf-httpapi-idempotency-key-header).
	 */
	public static class Http {

		/**
		 * Routes whose requests are answered once per Idempotency-Key; the first that
		 * matches a request applies.
		 */
		private List<Route> routes = new ArrayList<>();

		/**
		 * The request header that carries the key.
		 */
		private String header = "Idempotency-Key";

		/**
		 * How long a response is kept and replayed to retries with its key.
		 */
		private Duration ttl = Duration.ofHours(24);

		/**
		 * How long a running request holds its key; a retry after that runs the request
		 * again.
		 */
		private Duration lease = Duration.ofSeconds(30);

		/**
		 * The longest key accepted; a longer one is refused with 400.
		 */
		private int maxKeyLength = 255;

		/**
		 * The largest request body accepted with a key (it is read to fingerprint the
		 * request); a larger one is refused with 413.
		 */
		private DataSize maxRequestSize = DataSize.ofMegabytes(1);

		/**
		 * The largest response body recorded; a larger one streams through and is
		 * recorded as not replayable (a retry gets 410).
		 */
		private DataSize maxResponseSize = DataSize.ofKilobytes(64);

		/**
		 * Order of the filter among the application's filters; after Spring Security's by
		 * default, so that keys are scoped to the authenticated user.
		 */
		private int order = IdempotencyKeyFilter.DEFAULT_ORDER;

		/**
		 * What a key sent by a caller the scope resolver finds no scope for (by default:
		 * no authenticated user) falls in: refused with 403, the client's address, or one
		 * key space shared by all such callers.
		 */
		private Anonymous anonymous = Anonymous.REFUSE;

		public List<Route> getRoutes() {
			return this.routes;
		}

		public void setRoutes(List<Route> routes) {
			this.routes = routes;
		}

		public String getHeader() {
			return this.header;
		}

		public void setHeader(String header) {
			this.header = header;
		}

		public Duration getTtl() {
			return this.ttl;
		}

		public void setTtl(Duration ttl) {
			this.ttl = ttl;
		}

		public Duration getLease() {
			return this.lease;
		}

		public void setLease(Duration lease) {
			this.lease = lease;
		}

		public int getMaxKeyLength() {
			return this.maxKeyLength;
		}

		public void setMaxKeyLength(int maxKeyLength) {
			this.maxKeyLength = maxKeyLength;
		}

		public DataSize getMaxRequestSize() {
			return this.maxRequestSize;
		}

		public void setMaxRequestSize(DataSize maxRequestSize) {
			this.maxRequestSize = maxRequestSize;
		}

		public DataSize getMaxResponseSize() {
			return this.maxResponseSize;
		}

		public void setMaxResponseSize(DataSize maxResponseSize) {
			this.maxResponseSize = maxResponseSize;
		}

		public int getOrder() {
			return this.order;
		}

		public void setOrder(int order) {
			this.order = order;
		}

		public Anonymous getAnonymous() {
			return this.anonymous;
		}

		public void setAnonymous(Anonymous anonymous) {
			this.anonymous = anonymous;
		}

	}

	/**
	 * What an Idempotency-Key without a scope falls in.
	 */
	public enum Anonymous {

		/**
		 * The request is refused with 403.
		 */
		REFUSE,

		/**
		 * The key is scoped to the client's IP address.
		 */
		CLIENT_ADDRESS,

		/**
		 * Every such caller shares one key space: one may get another's response.
		 */
		SHARED

	}

	/**
	 * One route answered once per Idempotency-Key.
	 */
	public static class Route {

		/**
		 * Path pattern of the requests, in Spring's PathPattern syntax, e.g.
		 * /payments/**.
		 */
		private @Nullable String path;

		/**
		 * HTTP methods the route covers.
		 */
		private List<String> methods = new ArrayList<>(List.of("POST", "PATCH"));

		/**
		 * Whether a request without a key is refused with 400 rather than run without
		 * idempotency.
		 */
		private boolean required = true;

		public @Nullable String getPath() {
			return this.path;
		}

		public void setPath(@Nullable String path) {
			this.path = path;
		}

		public List<String> getMethods() {
			return this.methods;
		}

		public void setMethods(List<String> methods) {
			this.methods = methods;
		}

		public boolean isRequired() {
			return this.required;
		}

		public void setRequired(boolean required) {
			this.required = required;
		}

	}

}
