package io.github.redkit.test.boot;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Gives a {@code @SpringBootTest} class a real Redis and clean Redkit state.
 * <p>
 * The Redis is started once per JVM and shared by every context that asks for the same
 * topology: a container ({@code redis:7}, or {@code REDKIT_REDIS_IMAGE}) when a Docker
 * engine answers, otherwise a {@code redis-server} process ({@code REDKIT_REDIS_SERVER},
 * the one on the {@code PATH}, or the one shipped in embedded-redis). Either way
 * {@code spring.data.redis.*} point at it and a {@code DataRedisConnectionDetails} bean
 * describes it, as {@code @ServiceConnection} does. Before each test every key under
 * {@code redkit.key-prefix} is removed (see {@link #reset()}); a {@link RedkitTestRedis}
 * bean makes that Redis hang for a block of code.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(RedkitTestExtension.class)
public @interface RedkitTest {

	/**
	 * Whether the application talks to a Redis Cluster of three masters instead of a
	 * standalone server.
	 * @return {@code true} for a cluster
	 */
	boolean cluster() default false;

	/**
	 * When Redkit's keys are removed.
	 * @return the reset policy
	 */
	Reset reset() default Reset.BEFORE_EACH;

	/**
	 * When Redkit's state is reset.
	 */
	enum Reset {

		/**
		 * Before each test method, every key under {@code redkit.key-prefix} is removed
		 * ({@code SCAN MATCH} and {@code UNLINK} on every master), so that counters,
		 * locks and queues of one test do not leak into the next. Other keys are kept.
		 */
		BEFORE_EACH,

		/** Nothing is removed; {@link RedkitTestRedis#reset()} does it on demand. */
		NONE

	}

}
