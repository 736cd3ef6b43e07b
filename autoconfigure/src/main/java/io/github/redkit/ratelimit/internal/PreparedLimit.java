package io.github.redkit.ratelimit.internal;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.stream.Collectors;

import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.internal.LuaScript;
import io.github.redkit.ratelimit.RateLimitAlgorithm;
import io.github.redkit.ratelimit.RateLimitDecision;
import io.github.redkit.ratelimit.RateLimitPolicy;
import io.github.redkit.ratelimit.RateLimitWindow;

import org.springframework.util.Assert;
import org.springframework.util.StringUtils;

/**
 * A limit with what every decision on it needs computed once: the key prefix, the
 * algorithm's scripts and the script arguments. The scripts read their numbers packed as
 * little-endian doubles (cost, then limit and period of each window) with the struct
 * formats that read them: one {@code struct.unpack} costs Redis less than a
 * string-to-number conversion per number. The layout of the records and any further
 * arguments are the algorithm's ({@link AlgorithmDescriptor}).
 *
 * @param name the limit's name, as metrics and messages show it
 * @param policy its policy
 * @param windows its policy's windows, held so that reading a reply asks the policy
 * nothing
 * @param keyParts what its keys are made of around the identifier
 * @param argumentsForOne the script arguments for a cost of one
 * @param smallestLimit the smallest limit of its windows
 * @param scripts its algorithm's decision and refund scripts
 */
public record PreparedLimit(String name, RateLimitPolicy policy, List<RateLimitWindow> windows, KeyParts keyParts,
		byte[][] argumentsForOne, long smallestLimit, Scripts scripts) {

	// a decision's reply: seven little-endian doubles
	private static final int REPLY_BYTES = 56;

	// every algorithm's scripts, read when this class is loaded (see loadScripts), never
	// during a call: an inline limit is prepared on its first caller's thread, an event
	// loop too. A decision (or a charge) sent again after a reconnect would count again:
	// it is dropped, and its caller meets the failure mode; a give-back keeps a marker
	private static final Map<AlgorithmDescriptor, Scripts> SCRIPTS = Arrays.stream(RateLimitAlgorithm.values())
		.map(AlgorithmDescriptor::of)
		.collect(Collectors.toUnmodifiableMap(Function.identity(),
				(descriptor) -> new Scripts(LuaScript.load(descriptor.scriptName(), byte[].class).droppingReplays(),
						LuaScript.load(descriptor.refundScriptName(), Long.class).givingBack())));

	/**
	 * Reads the scripts of every algorithm now, if they were not yet: a limiter calls it
	 * when it is made, at start-up, so that no decision reads a file (an inline limit is
	 * prepared during its first call, on an event loop too).
	 * @return how many algorithms' scripts are ready
	 */
	static int loadScripts() {
		return SCRIPTS.size();
	}

	/**
	 * Prepares a limit.
	 * @param name the limit's name
	 * @param policy its policy
	 * @param keyspace the keyspace of its keys
	 * @return the prepared limit
	 */
	public static PreparedLimit of(String name, RateLimitPolicy policy, RedisKeyspace keyspace) {
		return of(name, name, policy, keyspace);
	}

	/**
	 * Prepares a limit whose counters are kept under another name than the one it is
	 * shown under.
	 * @param name the limit's name, as metrics and messages show it
	 * @param id the name its keys are built from (hashed by the keyspace when long)
	 * @param policy its policy
	 * @param keyspace the keyspace of its keys
	 * @return the prepared limit
	 */
	public static PreparedLimit of(String name, String id, RateLimitPolicy policy, RedisKeyspace keyspace) {
		Assert.hasText(name, "A rate limit needs a name");
		Assert.hasText(id, "A rate limit needs an id");
		Assert.notNull(policy, "A rate limit needs a policy");
		AlgorithmDescriptor algorithm = AlgorithmDescriptor.of(policy.algorithm());
		int windows = policy.windows().size();
		byte[][] extra = algorithm.extraArguments(policy);
		byte[][] arguments = new byte[3 + extra.length][];
		arguments[0] = numbers(policy, 1);
		arguments[1] = ascii("<" + "d".repeat(1 + 2 * windows));
		arguments[2] = ascii(algorithm.recordsFormat(policy));
		System.arraycopy(extra, 0, arguments, 3, extra.length);
		Scripts scripts = Objects.requireNonNull(SCRIPTS.get(algorithm), algorithm::toString);
		// the key of an identifier is <prefix>:ratelimit:<id>:{<identifier>}:<suffix>, as
		// the keyspace builds it: all but the identifier is built once
		String head = keyspace.key("ratelimit").part(id).build() + ":{";
		String tail = "}:" + RedisKeyspace.escape(algorithm.keySuffix(policy));
		return new PreparedLimit(name, policy, policy.windows(), new KeyParts(head, tail), arguments,
				policy.smallestLimit(), scripts);
	}

	/**
	 * The script that decides a call on this limit.
	 * @return the decision script
	 */
	public LuaScript<byte[]> script() {
		return this.scripts.decision();
	}

	/**
	 * The script that gives back what the decision script took (across cluster slots, or
	 * when a call is settled below what it took).
	 * @return the refund script
	 */
	public LuaScript<Long> refundScript() {
		return this.scripts.refund();
	}

	/**
	 * The Redis key of an identifier: one string holds all its windows.
	 * @param identifier the identifier
	 * @return the key
	 */
	public String key(String identifier) {
		if (!StringUtils.hasText(identifier)) {
			throw new IllegalArgumentException(
					"Rate limit '" + this.name + "': a key must not be null, empty or blank");
		}
		return this.keyParts.head() + RedisKeyspace.escape(identifier) + this.keyParts.tail();
	}

	/**
	 * The Redis key of an identifier as the script is sent it, one key alone: its UTF-8
	 * bytes, made at once from the identifier (an escaped part is ASCII), with no string
	 * or list of keys in between.
	 * @param identifier the identifier
	 * @return the keys of a script on it
	 */
	byte[][] encodedKey(String identifier) {
		if (!StringUtils.hasText(identifier)) {
			throw new IllegalArgumentException(
					"Rate limit '" + this.name + "': a key must not be null, empty or blank");
		}
		String part = RedisKeyspace.escape(identifier);
		byte[] head = this.keyParts.headBytes();
		byte[] tail = this.keyParts.tailBytes();
		byte[] key = new byte[head.length + part.length() + tail.length];
		System.arraycopy(head, 0, key, 0, head.length);
		for (int i = 0; i < part.length(); i++) {
			key[head.length + i] = (byte) part.charAt(i);
		}
		System.arraycopy(tail, 0, key, head.length + part.length(), tail.length);
		return new byte[][] { key };
	}

	/**
	 * The script arguments for a cost: packed numbers, their format, the records' format.
	 * @param cost the permits the call takes
	 * @return the arguments
	 */
	public byte[][] arguments(int cost) {
		if (cost == 1) {
			return this.argumentsForOne;
		}
		byte[][] arguments = this.argumentsForOne.clone();
		arguments[0] = numbers(this.policy, cost);
		return arguments;
	}

	/**
	 * The decision script's arguments that charge {@code excess} permits whatever the
	 * windows hold, or as many of them as the algorithm counts
	 * ({@link AlgorithmDescriptor#chargeable}): the excess of a call settled above what
	 * it took. The script reads a negative cost as such a charge.
	 * @param excess the permits to charge, at least 1
	 * @return the arguments
	 */
	byte[][] chargeArguments(long excess) {
		long charged = AlgorithmDescriptor.of(this.policy.algorithm()).chargeable(this.policy, excess);
		byte[][] arguments = this.argumentsForOne.clone();
		arguments[0] = numbers(this.policy, -charged);
		return arguments;
	}

	/**
	 * The refund script's arguments: the decision's numbers and formats, an empty slot,
	 * how long the refund's marker is kept, the Redis time of the decision, then the
	 * algorithm's own arguments (empty when it has none), then what the decision's reply
	 * adds after its seven numbers, when it adds anything (a token bucket's counts).
	 * @param cost the permits to give back
	 * @param markerTtl how long a repeated refund is recognized
	 * @param reply the reply of the decision that took the permits
	 * @return the arguments
	 */
	byte[][] refundArguments(int cost, Duration markerTtl, byte[] reply) {
		byte[][] decision = arguments(cost);
		double decidedAt = number(reply, 5);
		boolean more = reply.length > REPLY_BYTES;
		byte[][] arguments = new byte[Math.max(8, decision.length + (more ? 4 : 3))][];
		Arrays.fill(arguments, new byte[0]);
		System.arraycopy(decision, 0, arguments, 0, 3);
		// arguments[3] stays empty: the refund scripts read their algorithm from their
		// name
		arguments[4] = ascii(Long.toString(markerTtl.toMillis()));
		arguments[5] = ascii(Double.toString(decidedAt));
		System.arraycopy(decision, 3, arguments, 6, decision.length - 3);
		if (more) {
			arguments[decision.length + 3] = Arrays.copyOfRange(reply, REPLY_BYTES, reply.length);
		}
		return arguments;
	}

	/**
	 * Reads a decision script's reply: seven little-endian doubles, and what an algorithm
	 * adds after them for its refund.
	 * @param reply the reply
	 * @return the decision
	 */
	public RateLimitDecision decision(byte[] reply) {
		// checked without a message supplier: a capturing one would be made for every
		// reply
		if (reply == null || reply.length < REPLY_BYTES || reply.length % 8 != 0) {
			throw new IllegalStateException("Rate limit '" + this.name + "': unexpected script reply of "
					+ ((reply != null) ? reply.length : 0) + " bytes");
		}
		// read in place: a buffer over the reply would be one more object per decision
		boolean allowed = number(reply, 0) == 1;
		long remaining = (long) number(reply, 1);
		long retryAfter = (long) number(reply, 2);
		long resetAfter = (long) number(reply, 3);
		List<RateLimitWindow> windows = this.windows;
		RateLimitWindow window = windows.get((int) number(reply, 4));
		double decidedAtMillis = number(reply, 5);
		long refused = (long) number(reply, 6);
		List<RateLimitWindow> exceeded = (refused != 0) ? new ArrayList<>() : List.of();
		for (int j = 0; refused != 0 && j < windows.size(); j++) {
			if ((refused & (1L << j)) != 0) {
				exceeded.add(windows.get(j));
			}
		}
		Instant decidedAt = Instant.ofEpochSecond(0, Math.round(decidedAtMillis * 1_000_000));
		return new RateLimitDecision(allowed, remaining, Duration.ofMillis(allowed ? 0 : retryAfter),
				Duration.ofMillis(resetAfter), window, this.policy, exceeded, decidedAt);
	}

	/**
	 * The little-endian double at a position of a reply.
	 */
	private static double number(byte[] reply, int index) {
		int offset = index * 8;
		long bits = 0;
		for (int i = 7; i >= 0; i--) {
			bits = (bits << 8) | (reply[offset + i] & 0xFFL);
		}
		return Double.longBitsToDouble(bits);
	}

	private static byte[] numbers(RateLimitPolicy policy, double cost) {
		List<RateLimitWindow> windows = policy.windows();
		ByteBuffer numbers = ByteBuffer.allocate(8 * (1 + 2 * windows.size())).order(ByteOrder.LITTLE_ENDIAN);
		numbers.putDouble(cost);
		for (RateLimitWindow window : windows) {
			numbers.putDouble(window.limit());
			numbers.putDouble(window.period().toMillis());
		}
		return numbers.array();
	}

	private static byte[] ascii(String text) {
		return text.getBytes(StandardCharsets.US_ASCII);
	}

	/**
	 * What the keys of a limit are made of around the identifier, as strings and as the
	 * UTF-8 bytes a script is sent.
	 *
	 * @param head what its keys start with: the prefix, the limit's id and the opening of
	 * the hash tag around the identifier
	 * @param tail what its keys end with: the end of the tag, then the algorithm and the
	 * layout of its records where it can change, so that a changed layout starts afresh
	 * instead of misreading
	 * @param headBytes the head's bytes
	 * @param tailBytes the tail's bytes
	 */
	public record KeyParts(String head, String tail, byte[] headBytes, byte[] tailBytes) {

		KeyParts(String head, String tail) {
			this(head, tail, head.getBytes(StandardCharsets.UTF_8), tail.getBytes(StandardCharsets.UTF_8));
		}

	}

	/**
	 * An algorithm's scripts.
	 *
	 * @param decision decides a call
	 * @param refund gives back what a decision took
	 */
	public record Scripts(LuaScript<byte[]> decision, LuaScript<Long> refund) {
	}

}
