package io.github.redkit.faults;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

import io.github.redkit.faults.IdempotentStepScenario.Breakage;
import io.github.redkit.idempotency.IdempotentSteps;
import io.github.redkit.idempotency.StepClaim;
import io.github.redkit.idempotency.StepOutcome;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * Breaks the idempotent steps of an instance on purpose ({@code faults.broken-steps}), so
 * that a test can show the checker catching a broken build. The reactive face is built on
 * this bean, so it breaks too.
 */
class BrokenIdempotentSteps implements BeanPostProcessor, EnvironmentAware {

	private Breakage breakage = Breakage.NONE;

	private final AtomicLong refusals = new AtomicLong();

	@Override
	public void setEnvironment(Environment environment) {
		this.breakage = environment.getProperty("faults.broken-steps", Breakage.class, Breakage.NONE);
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (this.breakage == Breakage.NONE || !(bean instanceof IdempotentSteps steps)) {
			return bean;
		}
		return Proxy.newProxyInstance(getClass().getClassLoader(), ClassUtils.getAllInterfaces(bean),
				(proxy, method, args) -> {
					if (this.breakage == Breakage.STALE_COMPLETE && isComplete(method, args)) {
						StepClaim claim = (StepClaim) args[0];
						// completes whichever claim holds the step: no token check
						return method.getName().equals("complete")
								? invoke(steps,
										IdempotentSteps.class.getMethod("complete", String.class, String.class,
												Object.class),
										claim.operation(), claim.step(), args[1])
								: steps.completeAsync(claim.operation(), claim.step(), args[1]);
					}
					Object result = invoke(bean, method, args);
					if (this.breakage == Breakage.DUPLICATE_CLAIM) {
						if (result instanceof StepClaim claim) {
							return breakIt(claim);
						}
						if (result instanceof CompletableFuture<?> future && method.getName().equals("claimAsync")) {
							return future.thenApply((claim) -> breakIt((StepClaim) claim));
						}
					}
					return result;
				});
	}

	private static boolean isComplete(Method method, Object[] args) {
		return method.getName().startsWith("complete") && args != null && args.length == 2
				&& args[0] instanceof StepClaim;
	}

	private static Object invoke(Object target, Method method, Object... args) throws Throwable {
		try {
			return method.invoke(target, args);
		}
		catch (InvocationTargetException ex) {
			throw ex.getTargetException();
		}
	}

	private StepClaim breakIt(StepClaim claim) {
		if (claim.outcome() == StepOutcome.CLAIMED || this.refusals.incrementAndGet() % 5 != 0) {
			return claim;
		}
		return new StepClaim(claim.operation(), claim.step(), StepOutcome.CLAIMED, claim.token(), claim.ttl(),
				claim.lease(), claim.fingerprint(), null, claim.doneSteps(), claim.inProgressSteps());
	}

}
