package io.github.redkit.faults;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import io.github.redkit.budget.Budgets;
import io.github.redkit.budget.SpendResult;
import io.github.redkit.core.internal.LuaScript;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.faults.BudgetScenario.Breakage;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;

import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.framework.ProxyFactory;

/**
 * Breaks the budgets of an instance on purpose ({@code faults.broken-budgets}), so that a
 * test can show the checker catching a broken build. The reactive face is built on this
 * bean, so it breaks too. A local allowance's batches are broken where they go to Redis:
 * the script runner, outside the {@link BatchRecorder}, which records them as sent.
 */
class BrokenBudgets extends BrokenBuild<Breakage> {

	private final Set<String> seen = ConcurrentHashMap.newKeySet();

	private final AtomicLong count = new AtomicLong();

	private final AtomicLong takes = new AtomicLong();

	// the first batch taken of each budget, whose record a reused id points at
	private final Map<String, String> firstTake = new ConcurrentHashMap<>();

	BrokenBudgets() {
		super("faults.broken-budgets", Breakage.class, Budgets.class);
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (bean instanceof RedisScriptRunner && (broken(Breakage.GIVEN_BACK_TWICE) || broken(Breakage.BATCH_REUSED)
				|| broken(Breakage.NO_OPERATION_ID))) {
			ProxyFactory proxy = new ProxyFactory(bean);
			proxy.setProxyTargetClass(true);
			proxy.addAdvice((MethodInterceptor) this::sendBatch);
			return proxy.getProxy(getClass().getClassLoader());
		}
		return super.postProcessAfterInitialization(bean, beanName);
	}

	private Object sendBatch(MethodInvocation invocation) throws Throwable {
		Object[] sent = invocation.getArguments();
		if (broken(Breakage.NO_OPERATION_ID) && sent.length > 1 && sent[0] instanceof LuaScript<?> script
				&& script.name().equals("budget_apply") && sent[1] instanceof List<?> keys && keys.size() == 4
				&& String.valueOf(keys.get(3)).contains(":op:once:")) {
			// sent as 0.1.0 sent it: no record of the generated id, so a replay applies
			// again
			sent[1] = List.copyOf(keys.subList(0, 3));
		}
		BatchRecorder.Call call = BatchRecorder.Call.of(invocation);
		if (call == null) {
			return invocation.proceed();
		}
		Object[] args = invocation.getArguments();
		if (broken(Breakage.GIVEN_BACK_TWICE) && call.command().equals("giveback")
				&& this.count.incrementAndGet() % 2 == 0) {
			// sent once more under a record of its own: it applies twice
			List<String> keys = new ArrayList<>(call.keys());
			keys.set(3, keys.get(3) + "-twice");
			Object first = invocation.proceed();
			((ProxyMethodInvocation) invocation).invocableClone(args[0], keys, args[2]).proceed();
			return first;
		}
		if (broken(Breakage.BATCH_REUSED) && call.command().equals("spend")) {
			String first = this.firstTake.putIfAbsent(call.budget(), call.keys().get(3));
			if (first != null && this.takes.incrementAndGet() % 3 == 0) {
				// a new batch under a used id: Redis replays that batch's spend and
				// takes nothing
				List<String> keys = new ArrayList<>(call.keys());
				keys.set(3, first);
				args[1] = keys;
			}
		}
		return invocation.proceed();
	}

	@Override
	Object call(Object bean, Method method, Object[] args) throws Throwable {
		boolean spendWithId = method.getName().startsWith("spend") && args != null && args.length == 3;
		if (broken(Breakage.IGNORED_ID) && spendWithId && !this.seen.add((String) args[2])
				&& this.count.incrementAndGet() % 5 == 0) {
			// the retry goes out as a new spend
			args = new Object[] { args[0], args[1], args[2] + "-again" + this.count.get() };
		}
		Object answer = invoke(bean, method, args);
		return (broken(Breakage.OVER_SPEND) && method.getName().startsWith("spend"))
				? bend(answer, (value) -> (value instanceof SpendResult spent) ? overSpent(spent) : value) : answer;
	}

	private SpendResult overSpent(SpendResult spent) {
		return (!spent.applied() && this.count.incrementAndGet() % 3 == 0) ? new SpendResult(true, spent.remaining())
				: spent;
	}

}
