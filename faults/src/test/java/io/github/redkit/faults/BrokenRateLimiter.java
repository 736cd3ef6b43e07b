package io.github.redkit.faults;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

import io.github.redkit.ratelimit.RateLimitDecision;
import io.github.redkit.ratelimit.RateLimiter;
import io.github.redkit.ratelimit.ReactiveRateLimiter;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * Breaks the rate limiters of an instance on purpose ({@code faults.broken}), so that a
 * test can show the checker catching a broken build.
 */
class BrokenRateLimiter implements BeanPostProcessor, EnvironmentAware {

	private RateLimitScenario.Breakage breakage = RateLimitScenario.Breakage.NONE;

	private final AtomicLong decisions = new AtomicLong();

	@Override
	public void setEnvironment(Environment environment) {
		this.breakage = environment.getProperty("faults.broken", RateLimitScenario.Breakage.class,
				RateLimitScenario.Breakage.NONE);
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (this.breakage == RateLimitScenario.Breakage.NONE
				|| !(bean instanceof RateLimiter || bean instanceof ReactiveRateLimiter)) {
			return bean;
		}
		return Proxy.newProxyInstance(getClass().getClassLoader(), ClassUtils.getAllInterfaces(bean),
				(proxy, method, args) -> {
					Object result;
					try {
						result = method.invoke(bean, args);
					}
					catch (InvocationTargetException ex) {
						throw ex.getTargetException();
					}
					if (result instanceof RateLimitDecision decision) {
						return breakIt(decision);
					}
					if (result instanceof Mono<?> mono) {
						return mono
							.map((value) -> (value instanceof RateLimitDecision decision) ? breakIt(decision) : value);
					}
					if (result instanceof CompletableFuture<?> future) {
						return future.thenApply(
								(value) -> (value instanceof RateLimitDecision decision) ? breakIt(decision) : value);
					}
					return result;
				});
	}

	private RateLimitDecision breakIt(RateLimitDecision decision) {
		if (decision.decidedAt() == null) {
			return decision;
		}
		boolean fifth = this.decisions.incrementAndGet() % 5 == 0;
		if (this.breakage == RateLimitScenario.Breakage.OVER_ALLOW && !decision.allowed() && fifth) {
			return new RateLimitDecision(true, 0, decision.retryAfter(), decision.resetAfter(), decision.window(),
					decision.policy(), List.of(), decision.decidedAt());
		}
		if (this.breakage == RateLimitScenario.Breakage.LOST_PERMIT && decision.allowed() && fifth
				&& decision.policy() != null) {
			return new RateLimitDecision(false, 0, decision.resetAfter(), decision.resetAfter(), decision.window(),
					decision.policy(), decision.policy().windows(), decision.decidedAt());
		}
		return decision;
	}

}
