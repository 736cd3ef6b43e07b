package io.github.redkit.faults;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import io.github.redkit.budget.Budgets;
import io.github.redkit.budget.SpendResult;
import io.github.redkit.faults.BudgetScenario.Breakage;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * Breaks the budgets of an instance on purpose ({@code faults.broken-budgets}), so that a
 * test can show the checker catching a broken build. The reactive face is built on this
 * bean, so it breaks too.
 */
class BrokenBudgets implements BeanPostProcessor, EnvironmentAware {

	private Breakage breakage = Breakage.NONE;

	private final Set<String> seen = ConcurrentHashMap.newKeySet();

	private final AtomicLong count = new AtomicLong();

	@Override
	public void setEnvironment(Environment environment) {
		this.breakage = environment.getProperty("faults.broken-budgets", Breakage.class, Breakage.NONE);
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (this.breakage == Breakage.NONE || !(bean instanceof Budgets)) {
			return bean;
		}
		return Proxy.newProxyInstance(getClass().getClassLoader(), ClassUtils.getAllInterfaces(bean),
				(proxy, method, args) -> {
					boolean spendWithId = method.getName().startsWith("spend") && args != null && args.length == 3;
					if (this.breakage == Breakage.IGNORED_ID && spendWithId && !this.seen.add((String) args[2])
							&& this.count.incrementAndGet() % 5 == 0) {
						// the retry goes out as a new spend
						args = new Object[] { args[0], args[1], args[2] + "-again" + this.count.get() };
					}
					Object result = invoke(bean, method, args);
					if (this.breakage == Breakage.OVER_SPEND && method.getName().startsWith("spend")) {
						if (result instanceof SpendResult spent) {
							return overSpent(spent);
						}
						if (result instanceof CompletableFuture<?> future) {
							return future.thenApply((spent) -> overSpent((SpendResult) spent));
						}
					}
					return result;
				});
	}

	private SpendResult overSpent(SpendResult spent) {
		return (!spent.applied() && this.count.incrementAndGet() % 3 == 0) ? new SpendResult(true, spent.remaining())
				: spent;
	}

	private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
		try {
			return method.invoke(target, args);
		}
		catch (InvocationTargetException ex) {
			throw ex.getTargetException();
		}
	}

}
