package io.github.redkit.testsupport;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A Redis server of the test class's own, for the tests that pause, stop, kill or flush
 * it (a class that only needs a server uses {@link RedisTopology#STANDALONE}'s shared
 * one). On a static {@link RedisServer} field: a standalone server
 * ({@link RedisServers#startStandalone()}) started before the class's tests and closed
 * after them, one per field. On a static
 * {@link org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory}
 * field: a started connection factory to the class's server (the one named by
 * {@link #server()} when it has several), destroyed before that server closes.
 */
@Target(ElementType.FIELD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@ExtendWith(PrivateRedisExtension.class)
public @interface PrivateRedis {

	/**
	 * For a connection factory field, the name of the server field it connects to; empty
	 * for the class's only one.
	 * @return a field name, or empty
	 */
	String server() default "";

}
