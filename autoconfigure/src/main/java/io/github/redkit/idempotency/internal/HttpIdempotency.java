package io.github.redkit.idempotency.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import io.github.redkit.core.internal.Problems;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.server.PathContainer;

/**
 * What the servlet and the reactive {@code Idempotency-Key} filters share
 * (draft-ietf-httpapi-idempotency-key-header): which requests take a key, how a key is
 * read and scoped, the request's fingerprint, how a response is recorded and replayed,
 * and the problem details of each refusal. A response is recorded as the result of the
 * step {@value #STEP} of the operation the key names, so the filters decide through
 * {@code IdempotentSteps}' claims.
 */
public final class HttpIdempotency {

	/** The step each key's operation records its response under. */
	public static final String STEP = "response";

	/** The header a replayed response carries, as Stripe's clients know it. */
	public static final String REPLAYED = "Idempotent-Replayed";

	// what a replay must not repeat: set per connection or per response by the server
	private static final Set<String> NOT_REPLAYED = Set.of("date", "content-length", "transfer-encoding", "connection",
			"keep-alive", "set-cookie", "server");

	private final List<IdempotencyKeyRoute> routes;

	private final String header;

	private final Duration ttl;

	private final Duration lease;

	private final int maxKeyLength;

	private final long maxRequestSize;

	private final long maxResponseSize;

	private final JsonMapper json;

	/**
	 * Creates the settings.
	 * @param routes the routes, the first match wins
	 * @param limits the header, the record's lifetime and the sizes
	 * @param json reads recorded responses
	 */
	public HttpIdempotency(List<IdempotencyKeyRoute> routes, Limits limits, JsonMapper json) {
		this.routes = List.copyOf(routes);
		this.header = limits.header();
		this.ttl = limits.ttl();
		this.lease = limits.lease();
		this.maxKeyLength = limits.maxKeyLength();
		this.maxRequestSize = limits.maxRequestSize();
		this.maxResponseSize = limits.maxResponseSize();
		this.json = json;
	}

	/**
	 * The route a request takes its key on.
	 * @param method the request's method
	 * @param path the path within the application
	 * @return the first route that matches, {@code null} for none
	 */
	public @Nullable IdempotencyKeyRoute route(HttpMethod method, PathContainer path) {
		for (IdempotencyKeyRoute route : this.routes) {
			if (route.methods().contains(method) && route.path().matches(path)) {
				return route;
			}
		}
		return null;
	}

	public String header() {
		return this.header;
	}

	public Duration ttl() {
		return this.ttl;
	}

	public Duration lease() {
		return this.lease;
	}

	public long maxRequestSize() {
		return this.maxRequestSize;
	}

	public long maxResponseSize() {
		return this.maxResponseSize;
	}

	/**
	 * Reads a key: a structured-field string ({@code "abc"}) as the draft has it, or the
	 * bare value many clients send.
	 * @param value the header's value
	 * @return the key
	 * @throws IllegalArgumentException saying what is wrong with it
	 */
	public String key(String value) {
		String key = value.trim();
		if (key.length() >= 2 && key.startsWith("\"") && key.endsWith("\"")) {
			key = key.substring(1, key.length() - 1).replace("\\\"", "\"").replace("\\\\", "\\");
		}
		if (key.isEmpty()) {
			throw new IllegalArgumentException("The " + this.header + " header is empty");
		}
		if (key.length() > this.maxKeyLength) {
			throw new IllegalArgumentException("The " + this.header + " header is longer than " + this.maxKeyLength
					+ " characters (redkit.idempotency.http.max-key-length)");
		}
		for (int i = 0; i < key.length(); i++) {
			char c = key.charAt(i);
			if (c < 0x20 || c > 0x7e) {
				throw new IllegalArgumentException(
						"The " + this.header + " header holds a character other than printable ASCII");
			}
		}
		return key;
	}

	/**
	 * The operation a key names within its scope, so that two scopes' keys never meet:
	 * the scope's value is written with its length, its kind (lower-case letters, digits
	 * and {@code -}) before it. A user's scope keeps the layout of the previous release
	 * ({@code http:<length>:<name>:<key>}), and so does the shared one
	 * ({@code http:-:<key>}), so that records made before an upgrade are found.
	 * @param kind the scope's kind: {@code user}, {@code shared} or another
	 * @param value who, within the kind
	 * @param key the key
	 * @return the operation id
	 */
	public String operation(String kind, String value, String key) {
		return switch (kind) {
			case "shared" -> "http:-:" + key;
			case "user" -> "http:" + value.length() + ":" + value + ":" + key;
			default -> "http:" + kind + "." + value.length() + ":" + value + ":" + key;
		};
	}

	/**
	 * What makes two requests the same: method, path with its query, and body.
	 * @param method the method
	 * @param path the path
	 * @param query the query, {@code null} for none
	 * @param body the body
	 * @return a SHA-256 digest, hexadecimal
	 */
	public static String fingerprint(String method, String path, @Nullable String query, byte[] body) {
		return fingerprint(method, path, query, body, null);
	}

	/**
	 * What makes two requests the same: method, path with its query, body, and the form
	 * the application receives as parameters and parts rather than as a body.
	 * @param method the method
	 * @param path the path
	 * @param query the query, {@code null} for none
	 * @param body what is left of the body once a form was read
	 * @param form the form, {@code null} when the request is not one
	 * @return a SHA-256 digest, hexadecimal
	 */
	public static String fingerprint(String method, String path, @Nullable String query, byte[] body,
			@Nullable ReceivedForm form) {
		MessageDigest digest = sha256();
		digest.update(
				(method + ' ' + path + ((query != null) ? "?" + query : "") + '\n').getBytes(StandardCharsets.UTF_8));
		if (form != null) {
			digest.update(("\u0000form " + body.length + "\n").getBytes(StandardCharsets.UTF_8));
		}
		digest.update(body);
		if (form != null) {
			digest.update(form.digest());
		}
		return HexFormat.of().formatHex(digest.digest());
	}

	static MessageDigest sha256() {
		try {
			return MessageDigest.getInstance("SHA-256");
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * Whether a response is recorded: a server error is not, nor a refusal that a retry
	 * may not meet ({@code 408}, {@code 409}, {@code 425}, {@code 429}), so that a retry
	 * runs the request again.
	 * @param status the status code
	 * @return whether to record it
	 */
	public static boolean records(int status) {
		return status < 500 && status != 408 && status != 409 && status != 425 && status != 429;
	}

	/**
	 * A response as the step records it, its body left out when larger than
	 * {@code max-response-size}.
	 * @param status the status code
	 * @param headers the headers
	 * @param body the body
	 * @return the record
	 */
	public StoredResponse store(int status, HttpHeaders headers, byte[] body) {
		Map<String, List<String>> kept = new LinkedHashMap<>();
		headers.forEach((name, values) -> {
			if (!NOT_REPLAYED.contains(name.toLowerCase(Locale.ROOT))) {
				kept.put(name, List.copyOf(values));
			}
		});
		boolean omitted = body.length > this.maxResponseSize;
		return new StoredResponse(status, kept, omitted ? new byte[0] : body, omitted);
	}

	/**
	 * A response that went through to the client as it came (an event stream, a streaming
	 * body, a body past {@code max-response-size}): recorded as done, not replayable.
	 * @param status the status code
	 * @param headers the headers
	 * @return the record
	 */
	public StoredResponse notReplayable(int status, HttpHeaders headers) {
		StoredResponse kept = store(status, headers, new byte[0]);
		return new StoredResponse(kept.status(), kept.headers(), kept.body(), true);
	}

	/**
	 * A recorded response, as the step gave it back.
	 * @param json the step's result
	 * @return the response
	 */
	public StoredResponse read(String json) {
		return this.json.readValue(json, StoredResponse.class);
	}

	/**
	 * A problem as JSON, as Spring's handlers render it.
	 * @param problem the problem
	 * @param instance the request's path
	 * @return the body
	 */
	public byte[] json(ProblemDetail problem, String instance) {
		Map<String, Object> body = new LinkedHashMap<>();
		body.put("type", String.valueOf(problem.getType()));
		body.put("title", problem.getTitle());
		body.put("status", problem.getStatus());
		body.put("detail", problem.getDetail());
		body.put("instance", instance);
		return this.json.writeValueAsBytes(body);
	}

	/**
	 * The answer to a request without a key on a route that requires one.
	 * @return a {@code 400} problem
	 */
	public ProblemDetail missing() {
		return Problems.of(HttpStatus.BAD_REQUEST, "Idempotency key missing",
				"This request must carry an " + this.header + " header");
	}

	/**
	 * The answer to a malformed key.
	 * @param reason what is wrong
	 * @return a {@code 400} problem
	 */
	public ProblemDetail malformed(String reason) {
		return Problems.of(HttpStatus.BAD_REQUEST, "Idempotency key malformed", reason);
	}

	/**
	 * The answer to a retry while the first request with its key still runs.
	 * @return a {@code 409} problem
	 */
	public ProblemDetail inProgress() {
		return Problems.of(HttpStatus.CONFLICT, "Request in progress",
				"A request with this " + this.header + " is still being processed; retry later");
	}

	/**
	 * The answer to a key used again with another request.
	 * @return a {@code 422} problem
	 */
	public ProblemDetail reused() {
		return Problems.of(HttpStatus.UNPROCESSABLE_CONTENT, "Idempotency key reused",
				"This " + this.header + " was already used with a different request (method, path or body)");
	}

	/**
	 * The answer to a key sent by a caller the scope resolver finds no scope for.
	 * @return a {@code 403} problem
	 */
	public ProblemDetail unscoped() {
		return Problems.of(HttpStatus.FORBIDDEN, "Idempotency key without a caller", "A request with an " + this.header
				+ " must come from a caller its key can be kept apart for, such as an authenticated user (redkit.idempotency.http.anonymous)");
	}

	/**
	 * The answer to a retry whose first response went through to its client without being
	 * recorded (an event stream, a streaming body, or a body past
	 * {@code max-response-size}).
	 * @return a {@code 410} problem
	 */
	public ProblemDetail notReplayable() {
		return Problems.of(HttpStatus.GONE, "Response not replayable", "The request with this " + this.header
				+ " was processed, but its response streamed or was larger than is recorded (redkit.idempotency.http.max-response-size), so it cannot be sent again");
	}

	/**
	 * The answer to a body larger than can be fingerprinted.
	 * @return a {@code 413} problem
	 */
	public ProblemDetail tooLarge() {
		return Problems.of(HttpStatus.CONTENT_TOO_LARGE, "Request too large", "A request with an " + this.header
				+ " may have at most " + this.maxRequestSize + " bytes (redkit.idempotency.http.max-request-size)");
	}

	/**
	 * The answer when Redis cannot tell whether the key was used: the request is not run.
	 * @return a {@code 503} problem
	 */
	public ProblemDetail unavailable() {
		return Problems.of(HttpStatus.SERVICE_UNAVAILABLE, "Idempotency unavailable",
				"Whether this " + this.header + " was used could not be checked; retry later");
	}

	/**
	 * The header that carries keys, how long their responses are kept, and how large
	 * keys, requests and recorded responses may be.
	 *
	 * @param header the key's header
	 * @param ttl how long a response is replayed
	 * @param lease how long a running request holds its key before a retry may run it
	 * @param maxKeyLength the longest key
	 * @param maxRequestSize the largest request body fingerprinted, in bytes
	 * @param maxResponseSize the largest response body recorded, in bytes
	 */
	public record Limits(String header, Duration ttl, Duration lease, int maxKeyLength, long maxRequestSize,
			long maxResponseSize) {

	}

}
