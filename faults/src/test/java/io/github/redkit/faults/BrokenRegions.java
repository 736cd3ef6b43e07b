package io.github.redkit.faults;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import io.github.redkit.faults.RegionScenario.Breakage;
import io.github.redkit.region.RegionalBudgets;
import io.github.redkit.region.RegionalBudgets.RegionalSpend;
import io.github.redkit.region.RegionalCounters;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * Breaks the regional counters or budgets of an instance on purpose
 * ({@code faults.broken}), so that a test can show each checker catching a broken build.
 */
class BrokenRegions implements BeanPostProcessor, EnvironmentAware {

	private Set<Breakage> breakages = EnumSet.noneOf(Breakage.class);

	private final AtomicLong calls = new AtomicLong();

	@Override
	public void setEnvironment(Environment environment) {
		String[] broken = environment.getProperty("faults.broken", String[].class, new String[0]);
		Arrays.stream(broken).map(Breakage::valueOf).forEach(this.breakages::add);
		this.breakages.remove(Breakage.NONE);
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (this.breakages.isEmpty() || !(bean instanceof RegionalCounters || bean instanceof RegionalBudgets)) {
			return bean;
		}
		return Proxy.newProxyInstance(getClass().getClassLoader(), ClassUtils.getAllInterfaces(bean),
				(proxy, method, args) -> {
					Object result = invoke(bean, method, args);
					return breakIt(bean, method, args, result);
				});
	}

	private Object breakIt(Object bean, Method method, Object[] args, Object result) throws Throwable {
		String name = method.getName();
		boolean fifth = this.calls.incrementAndGet() % 5 == 0;
		if (this.breakages.contains(Breakage.DOUBLE_INCREMENT) && name.equals("increment") && fifth) {
			return invoke(bean, method, args);
		}
		if (result instanceof RegionalSpend spend && !spend.spent()
				&& ((this.breakages.contains(Breakage.ALLOTTED_PAST_ZERO) && RegionScenario.ALLOTTED.equals(args[0]))
						|| (this.breakages.contains(Breakage.SHARED_PAST_BOUND)
								&& RegionScenario.SHARED.equals(args[0])))) {
			return new RegionalSpend(true, spend.remaining(), false);
		}
		if ((this.breakages.contains(Breakage.GIVE_TWICE) && name.equals("give"))
				|| (this.breakages.contains(Breakage.BORROW_TWICE) && name.equals("borrow"))) {
			Object[] again = args.clone();
			again[again.length - 1] = args[args.length - 1] + "-again";
			invoke(bean, method, again);
		}
		return result;
	}

	private static Object invoke(Object bean, Method method, Object[] args) throws Throwable {
		try {
			return method.invoke(bean, args);
		}
		catch (InvocationTargetException ex) {
			throw ex.getTargetException();
		}
	}

}
