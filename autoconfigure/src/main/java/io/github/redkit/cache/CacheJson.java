package io.github.redkit.cache;

import java.util.List;

import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.jsontype.BasicPolymorphicTypeValidator;

import org.springframework.data.redis.serializer.GenericJacksonJsonRedisSerializer;
import org.springframework.data.redis.serializer.RedisSerializer;

/**
 * The JSON value serializer of Redkit's caches: Jackson 3 on a copy of the application's
 * {@link JsonMapper}, with the type of each value in an {@code @class} property so that
 * {@code GET} in {@code redis-cli} shows readable JSON and reading it back yields the
 * cached type. Never JDK serialization.
 */
public final class CacheJson {

	private CacheJson() {
	}

	/**
	 * Creates the serializer.
	 * @param mapper the application's mapper (copied, never changed)
	 * @param trustedPackages packages whose types may be read back; empty trusts every
	 * type written in Redis (only safe when nobody else can write there)
	 * @return the serializer
	 */
	public static RedisSerializer<Object> serializer(JsonMapper mapper, List<String> trustedPackages) {
		var builder = GenericJacksonJsonRedisSerializer.builder(mapper::rebuild).enableSpringCacheNullValueSupport();
		if (trustedPackages.isEmpty()) {
			builder.enableUnsafeDefaultTyping();
		}
		else {
			BasicPolymorphicTypeValidator.Builder validator = BasicPolymorphicTypeValidator.builder()
				.allowIfSubType("java.")
				.allowIfSubTypeIsArray();
			trustedPackages.forEach((prefix) -> validator.allowIfSubType(prefix.endsWith(".") ? prefix : prefix + "."));
			builder.enableDefaultTyping(validator.build());
		}
		return builder.build();
	}

}
