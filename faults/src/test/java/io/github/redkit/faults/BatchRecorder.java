package io.github.redkit.faults;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.redkit.core.internal.LuaScript;
import io.github.redkit.core.internal.RedisScriptRunner;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;

import org.springframework.aop.framework.ProxyFactory;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;

/**
 * Records every batch a budget's local allowance takes from Redis and every give-back of
 * one, as they go to Redis ({@code budget_apply}'s {@code spend} under an
 * {@code allowance:} operation id, and its {@code giveback}): the scenario cannot see
 * them through {@code Budgets}, which hands the batches out inside the instance. It wraps
 * the instance's script runner innermost ({@link Ordered#HIGHEST_PRECEDENCE}), so that a
 * broken build's changes to a call are recorded as sent. The log is found by the run's id
 * ({@code faults.batch-log}).
 */
class BatchRecorder implements BeanPostProcessor, EnvironmentAware, Ordered {

	/** The logs of the runs under way, by run id. */
	static final Map<String, List<Sent>> LOGS = new ConcurrentHashMap<>();

	private String run = "";

	@Override
	public void setEnvironment(Environment environment) {
		this.run = environment.getProperty("faults.batch-log", "");
	}

	@Override
	public int getOrder() {
		return Ordered.HIGHEST_PRECEDENCE;
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (!(bean instanceof RedisScriptRunner) || this.run.isEmpty()) {
			return bean;
		}
		List<Sent> log = LOGS.computeIfAbsent(this.run, (id) -> new CopyOnWriteArrayList<>());
		ProxyFactory proxy = new ProxyFactory(bean);
		proxy.setProxyTargetClass(true);
		proxy.addAdvice((MethodInterceptor) (invocation) -> record(invocation, log));
		return proxy.getProxy(getClass().getClassLoader());
	}

	private static Object record(MethodInvocation invocation, List<Sent> log) throws Throwable {
		Call call = Call.of(invocation);
		if (call == null) {
			return invocation.proceed();
		}
		long invoked = System.nanoTime();
		Object answer = invocation.proceed();
		((CompletableFuture<?>) answer).whenComplete((reply, ex) -> log.add(new Sent(call.command, call.budget(),
				call.id(), call.amount, invoked, System.nanoTime(), (ex != null) ? null : (List<?>) reply)));
		return answer;
	}

	/**
	 * A batch's spend or give-back as sent: the command, the keys, the amount.
	 */
	record Call(String command, List<String> keys, long amount) {

		static Call of(MethodInvocation invocation) {
			Object[] args = invocation.getArguments();
			if (!invocation.getMethod().getName().equals("executeAsync") || args.length != 3
					|| !(args[0] instanceof LuaScript<?> script) || !script.name().equals("budget_apply")
					|| !(args[2] instanceof String[] values)) {
				return null;
			}
			@SuppressWarnings("unchecked")
			List<String> keys = (List<String>) args[1];
			boolean take = values[0].equals("spend") && keys.size() > 3 && keys.get(3).contains(":op:spend:allowance");
			return (take || values[0].equals("giveback")) ? new Call(values[0], keys, Long.parseLong(values[1])) : null;
		}

		String budget() {
			String balance = this.keys.get(0);
			return balance.substring(balance.indexOf('{') + 1, balance.indexOf('}'));
		}

		/**
		 * The batch's id, as the record of its spend names it (a give-back's last key).
		 */
		String id() {
			String record = this.keys.get(this.command.equals("giveback") ? 4 : 3);
			return record.substring(record.indexOf(":op:spend:") + 10);
		}

	}

	/**
	 * One batch spend or give-back as Redis answered it.
	 *
	 * @param command {@code spend} (a batch taken) or {@code giveback}
	 * @param budget the budget
	 * @param id the batch's id ({@code allowance:...})
	 * @param amount the amount
	 * @param invoked when it was sent ({@link System#nanoTime()})
	 * @param completed when it was answered
	 * @param reply {@code budget_apply}'s answer, or {@code null} when none came
	 */
	record Sent(String command, String budget, String id, long amount, long invoked, long completed, List<?> reply) {

		/**
		 * Whether the instance got no answer: none came before it gave up. Its timeout
		 * completes the very future the runner returned, so an answer recorded here is
		 * the one the instance got, however late after the call was sent (on a busy
		 * machine a timeout is armed and fires late: seed 2 once had an answer 321 ms
		 * after sending under a 200 ms timeout, and the instance handed it out); one it
		 * gave up on is recorded unanswered.
		 */
		boolean lost() {
			return this.reply == null;
		}

		/** Whether Redis answered that it applied it now (not a replay). */
		boolean appliedNow() {
			return this.reply != null && ((Long) this.reply.get(0)) == 1 && ((Long) this.reply.get(2)) == 0;
		}

		@Override
		public String toString() {
			return this.id + " " + ((this.reply != null) ? this.reply : "unanswered");
		}

	}

}
