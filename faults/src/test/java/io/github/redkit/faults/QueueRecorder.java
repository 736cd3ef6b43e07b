package io.github.redkit.faults;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;

import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.internal.LuaScript;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.queue.QueueListener;
import io.github.redkit.queue.internal.RedisQueueTemplate;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;

import org.springframework.aop.framework.ProxyFactory;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.EnvironmentAware;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;

/**
 * What every instance of a queue run adds: Redkit's template replaced by one that records
 * every take, extension and settlement in the run's {@link QueueLedger} (and, behind
 * {@code faults.broken}, breaks it on purpose), and a {@code @QueueListener} that
 * sometimes throws and sometimes runs longer than the visibility timeout.
 */
@Configuration(proxyBeanMethods = false)
class QueueRecorder {

	@Bean
	static BeanPostProcessor recordingQueueTemplate() {
		return new Recording();
	}

	@Bean
	static BeanPostProcessor recordingQueueRunner() {
		return new Runner();
	}

	@Bean
	Listener queueFaultListener(Environment environment) {
		return new Listener(QueueLedger.of(environment.getRequiredProperty("faults.run")),
				environment.getRequiredProperty("faults.instance", Integer.class));
	}

	/**
	 * Replaces the template, broken as {@code faults.broken} says.
	 */
	static class Recording implements BeanPostProcessor, EnvironmentAware, BeanFactoryAware {

		private Environment environment;

		private BeanFactory beanFactory;

		@Override
		public void setEnvironment(Environment environment) {
			this.environment = environment;
		}

		@Override
		public void setBeanFactory(BeanFactory beanFactory) throws BeansException {
			this.beanFactory = beanFactory;
		}

		@Override
		public Object postProcessAfterInitialization(Object bean, String beanName) {
			if (!(bean instanceof RedisQueueTemplate original) || bean instanceof RecordingQueueTemplate) {
				return bean;
			}
			QueueScenario.Breakage breakage = this.environment.getProperty("faults.broken",
					QueueScenario.Breakage.class, QueueScenario.Breakage.NONE);
			QueueLedger ledger = QueueLedger.of(this.environment.getRequiredProperty("faults.run"));
			int instance = this.environment.getRequiredProperty("faults.instance", Integer.class);
			return new RecordingQueueTemplate(original, this.beanFactory.getBean(RedkitMetrics.class),
					ledger.observer(instance), (breakage == QueueScenario.Breakage.DROP_SENDS) ? 20 : 0,
					breakage == QueueScenario.Breakage.FAKE_EXTENDS,
					(breakage == QueueScenario.Breakage.SENT_TWICE) ? 5 : 0);
		}

	}

	/**
	 * Records every {@code queue_claim} and {@code queue_stream_take} the instance sends
	 * (its token, and whether an answer came), innermost, and sends one script without
	 * its dedupe when {@code faults.broken} names a breakage that takes it out.
	 */
	static class Runner implements BeanPostProcessor, EnvironmentAware, Ordered {

		private Environment environment;

		@Override
		public void setEnvironment(Environment environment) {
			this.environment = environment;
		}

		@Override
		public int getOrder() {
			return Ordered.HIGHEST_PRECEDENCE;
		}

		@Override
		public Object postProcessAfterInitialization(Object bean, String beanName) {
			if (!(bean instanceof RedisScriptRunner)) {
				return bean;
			}
			QueueScenario.Breakage breakage = this.environment.getProperty("faults.broken",
					QueueScenario.Breakage.class, QueueScenario.Breakage.NONE);
			QueueLedger ledger = QueueLedger.of(this.environment.getRequiredProperty("faults.run"));
			int instance = this.environment.getRequiredProperty("faults.instance", Integer.class);
			ProxyFactory proxy = new ProxyFactory(bean);
			proxy.setProxyTargetClass(true);
			proxy.addAdvice((MethodInterceptor) (invocation) -> record(invocation, ledger, instance));
			if (breakage.script() != null) {
				proxy.addAdvice(DedupeRemoved.advice(breakage.script(), breakage.dedupe(), breakage.replacement()));
			}
			return proxy.getProxy(getClass().getClassLoader());
		}

		private static Object record(MethodInvocation invocation, QueueLedger ledger, int instance) throws Throwable {
			Object[] args = invocation.getArguments();
			if (!invocation.getMethod().getName().equals("executeAsync") || args.length != 3
					|| !(args[0] instanceof LuaScript<?> script)
					|| !(script.name().equals("queue_claim") || script.name().equals(QueueScenario.STREAM_TAKE))
					|| !(args[1] instanceof List<?> keys) || !(args[2] instanceof String[] values)
					|| values.length < 5) {
				return invocation.proceed();
			}
			boolean stream = script.name().equals(QueueScenario.STREAM_TAKE);
			// a stream take's token is the last part of its record's key
			String token = stream ? String.valueOf(keys.get(keys.size() - 1)).replaceFirst(".*:", "") : values[4];
			long invoked = ledger.now();
			Object answer = invocation.proceed();
			((CompletableFuture<?>) answer).whenComplete((reply, ex) -> ledger.calls.add(new QueueLedger.TakeCall(token,
					instance, invoked, ledger.now(), (ex != null) ? -1 : stream ? streamTaken(reply) : popped(reply))));
			return answer;
		}

		/**
		 * The elements of a claim's answer: {element, now, acked, more...[, held ms]} or
		 * {0, ...}: its strings.
		 */
		private static int popped(Object reply) {
			return (reply instanceof List<?> list) ? (int) list.stream().filter(String.class::isInstance).count() : 0;
		}

		/**
		 * The entries of a stream take's answer: {acked, wait, the entries read (id,
		 * element, ...), then id, deliveries, element per entry claimed[, held ms]}.
		 */
		private static int streamTaken(Object reply) {
			if (!(reply instanceof List<?> list) || list.size() < 3) {
				return 0;
			}
			int read = (list.get(2) instanceof List<?> entries) ? entries.size() / 2 : 0;
			return read + (list.size() - 3) / 3;
		}

	}

	/**
	 * A listener that records each handling: mostly quick, sometimes throwing, sometimes
	 * slower than the visibility timeout (its heartbeat must keep the message).
	 */
	static class Listener {

		private final QueueLedger ledger;

		private final int instance;

		Listener(QueueLedger ledger, int instance) {
			this.ledger = ledger;
			this.instance = instance;
		}

		@QueueListener(queue = QueueScenario.QUEUE, concurrency = "2")
		void handle(String payload) throws InterruptedException {
			String take = String.valueOf(RecordingQueueTemplate.lastTaken());
			String consumer = QueueLedger.consumer(this.instance);
			this.ledger.handling.incrementAndGet();
			long start = this.ledger.now();
			boolean ok = false;
			try {
				int behaviour = ThreadLocalRandom.current().nextInt(100);
				if (behaviour < 12 || this.ledger.poison.contains(payload)) {
					throw new IllegalStateException("a failing handler");
				}
				// a slow handler outlives its visibility timeout: the heartbeat keeps it
				Thread.sleep((behaviour < 22)
						? QueueScenario.VISIBILITY_MILLIS + 100 + ThreadLocalRandom.current().nextInt(500)
						: ThreadLocalRandom.current().nextInt(10));
				ok = true;
			}
			finally {
				this.ledger.handlings
					.add(new QueueLedger.Handling(take, payload, consumer, start, this.ledger.now(), ok));
				this.ledger.handling.decrementAndGet();
			}
		}

	}

}
