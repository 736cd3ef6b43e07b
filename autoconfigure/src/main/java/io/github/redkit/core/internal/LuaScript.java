package io.github.redkit.core.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.lettuce.core.ScriptOutputType;
import org.jspecify.annotations.Nullable;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.core.script.DefaultRedisScript;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * A Lua script of Redkit, read once from {@code META-INF/redkit/scripts/<name>.lua}.
 * Spring Data Redis sends it with {@code EVALSHA} and falls back to {@code EVAL} when
 * Redis answers {@code NOSCRIPT}.
 *
 * @param <T> the result type
 */
public final class LuaScript<T> {

	/** Where the scripts live on the class path. */
	public static final String LOCATION = "META-INF/redkit/scripts/";

	private static final Pattern INCLUDE = Pattern.compile("^--#include (\\w+)$", Pattern.MULTILINE);

	private final String name;

	private final RedisScript<T> script;

	private final byte[] source;

	private final String sha1;

	// what each EVALSHA of it starts with, encoded once
	private final byte[] evalshaHead;

	private final @Nullable NativeForm nativeForm;

	private final boolean dropsReplays;

	private final boolean givenUpWithItsCaller;

	private final boolean givesBack;

	private LuaScript(String name, RedisScript<T> script, @Nullable NativeForm nativeForm, boolean dropsReplays,
			boolean givenUpWithItsCaller, boolean givesBack) {
		this.name = name;
		this.script = script;
		this.source = script.getScriptAsString().getBytes(StandardCharsets.UTF_8);
		// computed once: DefaultRedisScript guards its SHA-1 with a lock, and a contended
		// lock parks the thread, an event loop's included
		this.sha1 = script.getSha1();
		this.evalshaHead = ReplayGuard.EncodedEvalsha.head(this.sha1);
		this.nativeForm = nativeForm;
		this.dropsReplays = dropsReplays;
		this.givenUpWithItsCaller = givenUpWithItsCaller;
		this.givesBack = givesBack;
	}

	/**
	 * Loads a script. A line {@code --#include <name>} in it is replaced by the source of
	 * the script {@code <name>}: the way scripts share local functions.
	 * @param <T> the result type
	 * @param name the file name without {@code .lua}
	 * @param resultType {@code Long}, {@code Boolean}, {@code List}, {@code String} or
	 * {@code byte[]} (a bulk reply kept as it is)
	 * @return the script
	 * @throws IllegalStateException when the file is missing
	 */
	public static <T> LuaScript<T> load(String name, Class<T> resultType) {
		return new LuaScript<>(name, new DefaultRedisScript<>(read(name), resultType), null, false, false, false);
	}

	/**
	 * This script with a native command that does the same, which the runner sends
	 * instead on servers that have it.
	 * @param form the command
	 * @return the script with its native form
	 */
	public LuaScript<T> withNativeForm(NativeForm form) {
		return new LuaScript<>(this.name, this.script, form, this.dropsReplays, this.givenUpWithItsCaller,
				this.givesBack);
	}

	/**
	 * This script, never delivered twice by the client: a call Lettuce would send again
	 * after a reconnect (written, its reply never read, so Redis may have applied it) is
	 * not sent again, and fails as a {@code RedisConnectionFailureException}, the outcome
	 * unknown, as after a timeout. For a script whose second application would count
	 * again and that keeps no operation id (a rate-limit decision: a record per call
	 * would cost more than the decision), when its caller has a failure path for an
	 * unknown outcome. Only for a script whose reply is one value: an array's header
	 * arrives before its elements, so a connection cut in the middle of an array reply
	 * could not be told from a reply read whole.
	 * @return the script, its re-sends dropped
	 * @throws IllegalArgumentException when the script's result type is a {@code List}
	 */
	public LuaScript<T> droppingReplays() {
		// a reply counts as read once its first part arrives (AnswerWatch): whole for
		// one value, not for an array
		if (outputType() == ScriptOutputType.MULTI) {
			throw new IllegalArgumentException("Script '" + this.name + "': resultType " + this.script.getResultType()
					+ " is an array reply, whose re-sends cannot be dropped safely; declare one value (byte[], String, Long or Boolean)");
		}
		return new LuaScript<>(this.name, this.script, this.nativeForm, true, this.givenUpWithItsCaller,
				this.givesBack);
	}

	/**
	 * This script, not sent again as {@code EVAL} (nor as the script behind a native form
	 * Redis refused) once its caller cancelled its call, as
	 * {@code RedisScriptRunner.await} does on its timeout: for a script that applied for
	 * nobody costs more than not applied (a take would read entries with a delivery
	 * counted). Any other script is applied once Redis answers, whoever still waits (a
	 * release that timed out across a failover still frees what it held).
	 * @return the script, given up with its caller
	 */
	public LuaScript<T> givenUpWithItsCaller() {
		return new LuaScript<>(this.name, this.script, this.nativeForm, this.dropsReplays, true, this.givesBack);
	}

	/**
	 * This script, giving back what a caller held (a lock, a permit, a claim, permits
	 * taken, a budget's batch or reservation, a cache entry's lock): waiting for a
	 * connection the factory does not share, it is sent once one frees even when its
	 * caller stopped waiting (its timeout, a cancel), within the connection's command
	 * timeout, so that what it frees is not held until its lease ends. The caller's own
	 * wait still ends with its timeout.
	 * @return the script, sent whoever still waits for it
	 */
	public LuaScript<T> givingBack() {
		return new LuaScript<>(this.name, this.script, this.nativeForm, this.dropsReplays, this.givenUpWithItsCaller,
				true);
	}

	/**
	 * Whether this script is sent even once its caller stopped waiting.
	 * @return {@code true} for a script made with {@link #givingBack()}
	 */
	public boolean givesBack() {
		return this.givesBack;
	}

	/**
	 * Whether a cancelled call of this script is not sent again after {@code NOSCRIPT}.
	 * @return {@code true} for a script made with {@link #givenUpWithItsCaller()}
	 */
	public boolean givenUpWithCaller() {
		return this.givenUpWithItsCaller;
	}

	/**
	 * Whether a call Lettuce would send again after a reconnect is dropped instead.
	 * @return {@code true} for a script made with {@link #droppingReplays()}
	 */
	public boolean dropsReplays() {
		return this.dropsReplays;
	}

	/**
	 * The native command that does what this script does.
	 * @return the command, {@code null} when there is none
	 */
	public @Nullable NativeForm nativeForm() {
		return this.nativeForm;
	}

	private static String read(String name) {
		ClassPathResource resource = new ClassPathResource(LOCATION + name + ".lua", LuaScript.class.getClassLoader());
		if (!resource.exists()) {
			throw new IllegalStateException("Redkit script '" + name + "' not found at " + resource.getPath());
		}
		String source;
		try (InputStream in = resource.getInputStream()) {
			source = new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot read Redkit script '" + name + "'", ex);
		}
		// Redis runs one self-contained chunk: functions shared by several scripts are
		// pasted in where a line says "--#include <name>"
		Matcher include = INCLUDE.matcher(source);
		StringBuilder expanded = new StringBuilder();
		while (include.find()) {
			include.appendReplacement(expanded, Matcher.quoteReplacement(read(include.group(1))));
		}
		return include.appendTail(expanded).toString();
	}

	/**
	 * The script's name, used in error messages.
	 * @return the name
	 */
	public String name() {
		return this.name;
	}

	/**
	 * The Spring Data Redis script (its source and SHA-1).
	 * @return the script
	 */
	public RedisScript<T> redisScript() {
		return this.script;
	}

	/**
	 * The script's SHA-1, for {@code EVALSHA}, read without taking a lock.
	 * @return the hex SHA-1 of the source
	 */
	String sha1() {
		return this.sha1;
	}

	/**
	 * What each {@code EVALSHA} of this script starts with after its count, encoded.
	 * @return the command and the SHA-1 as bulk strings (not to be modified)
	 */
	byte[] evalshaHead() {
		return this.evalshaHead;
	}

	/**
	 * The script's source, for {@code EVAL} after a {@code NOSCRIPT} answer.
	 * @return the UTF-8 bytes of the source
	 */
	byte[] source() {
		return this.source;
	}

	/**
	 * Whether the script's reply is kept as bytes rather than read as UTF-8.
	 * @return {@code true} for a {@code byte[]} result type
	 */
	boolean returnsBytes() {
		return byte[].class.equals(this.script.getResultType());
	}

	/**
	 * How Lettuce should read the script's reply.
	 * @return the output type matching the result type
	 */
	ScriptOutputType outputType() {
		Class<?> type = this.script.getResultType();
		if (type == null) {
			return ScriptOutputType.STATUS;
		}
		if (Long.class.equals(type)) {
			return ScriptOutputType.INTEGER;
		}
		if (Boolean.class.equals(type)) {
			return ScriptOutputType.BOOLEAN;
		}
		return List.class.isAssignableFrom(type) ? ScriptOutputType.MULTI : ScriptOutputType.VALUE;
	}

	@Override
	public String toString() {
		return "LuaScript '" + this.name + "' (" + this.sha1 + ")";
	}

}
