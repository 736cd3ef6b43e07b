package io.github.redkit.faults;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

import io.github.redkit.concurrency.ConcurrencyLimiter;
import io.github.redkit.concurrency.ConcurrencyPermit;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * Breaks the concurrency limiter of an instance on purpose ({@code faults.broken}), so
 * that a test can show the checker catching a broken build.
 */
class BrokenConcurrencyLimiter implements BeanPostProcessor, EnvironmentAware {

	private ConcurrencyLimitScenario.Breakage breakage = ConcurrencyLimitScenario.Breakage.NONE;

	private final AtomicLong answers = new AtomicLong();

	@Override
	public void setEnvironment(Environment environment) {
		this.breakage = environment.getProperty("faults.broken", ConcurrencyLimitScenario.Breakage.class,
				ConcurrencyLimitScenario.Breakage.NONE);
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (this.breakage == ConcurrencyLimitScenario.Breakage.NONE || !(bean instanceof ConcurrencyLimiter)) {
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
					if (result instanceof Optional<?> permit && method.getName().equals("tryAcquire")) {
						return breakIt(permit);
					}
					if (result instanceof CompletableFuture<?> future) {
						return future
							.thenApply((value) -> (value instanceof Optional<?> permit) ? breakIt(permit) : value);
					}
					return result;
				});
	}

	private Optional<?> breakIt(Optional<?> answer) {
		boolean fifth = this.answers.incrementAndGet() % 5 == 0;
		if (this.breakage == ConcurrencyLimitScenario.Breakage.OVER_ALLOW && answer.isEmpty() && fifth) {
			return Optional.of(new Unlimited());
		}
		if (this.breakage == ConcurrencyLimitScenario.Breakage.LEAK && answer.isPresent() && fifth
				&& answer.get() instanceof ConcurrencyPermit permit) {
			return Optional.of(new NeverGivenBack(permit));
		}
		return answer;
	}

	/**
	 * A permit handed out over the limit, as a script that skipped its check would.
	 */
	private record Unlimited() implements ConcurrencyPermit {

		@Override
		public String limitName() {
			return ConcurrencyLimitScenario.LIMIT;
		}

		@Override
		public boolean acquired() {
			return true;
		}

		@Override
		public long inFlight() {
			return 1;
		}

		@Override
		public long remaining() {
			return 0;
		}

		@Override
		public boolean isHeld() {
			return true;
		}

		@Override
		public void close() {
		}

	}

	/**
	 * A permit whose close forgets to give it back: it stays renewed.
	 */
	private record NeverGivenBack(ConcurrencyPermit permit) implements ConcurrencyPermit {

		@Override
		public String limitName() {
			return this.permit.limitName();
		}

		@Override
		public boolean acquired() {
			return true;
		}

		@Override
		public long inFlight() {
			return this.permit.inFlight();
		}

		@Override
		public long remaining() {
			return this.permit.remaining();
		}

		@Override
		public boolean isHeld() {
			return this.permit.isHeld();
		}

		@Override
		public void close() {
		}

		@Override
		public CompletableFuture<Void> closeAsync() {
			return CompletableFuture.completedFuture(null);
		}

	}

}
