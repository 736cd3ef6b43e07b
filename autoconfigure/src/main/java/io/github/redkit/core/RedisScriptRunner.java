package io.github.redkit.core;

import java.util.List;

import org.springframework.data.redis.RedisSystemException;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Runs Redkit's scripts and commands on the application's Redis connection, with string
 * keys and arguments. An error answered by Redis becomes a {@link RedkitScriptException}
 * naming the script; a connection failure or a timeout keeps its Spring type so that
 * callers can apply their failure policy.
 */
public class RedisScriptRunner {

	private final StringRedisTemplate template;

	/**
	 * Creates a runner on a connection factory.
	 * @param connectionFactory the application's connection factory
	 */
	public RedisScriptRunner(RedisConnectionFactory connectionFactory) {
		this.template = new StringRedisTemplate(connectionFactory);
	}

	/**
	 * Runs a script: one round trip.
	 * @param <T> the result type
	 * @param script the script
	 * @param keys the keys it touches (in a cluster they must share a slot)
	 * @param args its arguments
	 * @return what the script returned
	 */
	public <T> T execute(LuaScript<T> script, List<String> keys, String... args) {
		try {
			return this.template.execute(script.redisScript(), keys, (Object[]) args);
		}
		catch (RedisSystemException ex) {
			throw new RedkitScriptException(script.name(), ex);
		}
	}

	/**
	 * The template behind this runner, for plain commands.
	 * @return a template with string serializers
	 */
	public StringRedisTemplate template() {
		return this.template;
	}

}
