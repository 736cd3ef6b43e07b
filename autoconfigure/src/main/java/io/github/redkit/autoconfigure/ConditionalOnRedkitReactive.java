package io.github.redkit.autoconfigure;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Conditional;

/**
 * Matches when Redkit's reactive beans are wanted: Reactor is on the classpath and the
 * application is a reactive web application, or {@code redkit.reactive.enabled=true} asks
 * for them anywhere ({@code false} turns them off everywhere). A servlet application gets
 * no reactive beans it did not ask for.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ ElementType.TYPE, ElementType.METHOD })
@Documented
@ConditionalOnClass(name = "reactor.core.publisher.Mono")
@Conditional(OnRedkitReactiveCondition.class)
public @interface ConditionalOnRedkitReactive {

}
