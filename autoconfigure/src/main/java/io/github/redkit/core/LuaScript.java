package io.github.redkit.core;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

import io.lettuce.core.ScriptOutputType;

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

	private final String name;

	private final RedisScript<T> script;

	private final byte[] source;

	private LuaScript(String name, RedisScript<T> script) {
		this.name = name;
		this.script = script;
		this.source = script.getScriptAsString().getBytes(StandardCharsets.UTF_8);
	}

	/**
	 * Loads a script.
	 * @param <T> the result type
	 * @param name the file name without {@code .lua}
	 * @param resultType {@code Long}, {@code Boolean}, {@code List} or {@code String}
	 * @return the script
	 * @throws IllegalStateException when the file is missing
	 */
	public static <T> LuaScript<T> load(String name, Class<T> resultType) {
		ClassPathResource resource = new ClassPathResource(LOCATION + name + ".lua", LuaScript.class.getClassLoader());
		if (!resource.exists()) {
			throw new IllegalStateException("Redkit script '" + name + "' not found at " + resource.getPath());
		}
		try (InputStream in = resource.getInputStream()) {
			String source = new String(in.readAllBytes(), StandardCharsets.UTF_8);
			return new LuaScript<>(name, new DefaultRedisScript<>(source, resultType));
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot read Redkit script '" + name + "'", ex);
		}
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
	 * The script's source, for {@code EVAL} after a {@code NOSCRIPT} answer.
	 * @return the UTF-8 bytes of the source
	 */
	byte[] source() {
		return this.source;
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
		return "LuaScript '" + this.name + "' (" + this.script.getSha1() + ")";
	}

}
