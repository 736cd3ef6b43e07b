package io.github.redkit.queue.internal;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.github.redkit.queue.QueueListener;
import io.github.redkit.queue.QueueListenerContainer;
import io.github.redkit.queue.QueueListenerRegistry;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.SmartLifecycle;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.env.Environment;

/**
 * Finds {@link QueueListener @QueueListener} methods on beans and runs one
 * {@link QueueListenerContainer} per method, started and stopped with the application
 * context (stopped before the Redis connection factory, so in-flight messages can be
 * settled).
 */
public class DefaultQueueListenerRegistry implements QueueListenerRegistry, BeanPostProcessor, SmartLifecycle {

	/**
	 * Stops before lifecycle beans of the default phase, such as the connection factory.
	 */
	public static final int PHASE = Integer.MAX_VALUE - 1000;

	private final Environment environment;

	private final ObjectProvider<QueueListenerContainerFactory> factory;

	private final Set<Class<?>> withoutListeners = ConcurrentHashMap.newKeySet();

	private final List<DefaultQueueListenerContainer> containers = new ArrayList<>();

	private boolean running;

	/**
	 * Creates a registry.
	 * @param environment resolves placeholders in annotation attributes
	 * @param factory creates containers (looked up when the first listener is found)
	 */
	public DefaultQueueListenerRegistry(Environment environment,
			ObjectProvider<QueueListenerContainerFactory> factory) {
		this.environment = environment;
		this.factory = factory;
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		Class<?> type = AopUtils.getTargetClass(bean);
		if (this.withoutListeners.contains(type)) {
			return bean;
		}
		Map<Method, QueueListener> methods = MethodIntrospector.selectMethods(type,
				(MethodIntrospector.MetadataLookup<QueueListener>) (method) -> AnnotatedElementUtils
					.findMergedAnnotation(method, QueueListener.class));
		if (methods.isEmpty()) {
			this.withoutListeners.add(type);
			return bean;
		}
		methods.forEach((method, listener) -> register(bean, AopUtils.selectInvocableMethod(method, bean.getClass()),
				listener));
		return bean;
	}

	private void register(Object bean, Method method, QueueListener listener) {
		String queue = this.environment.resolveRequiredPlaceholders(listener.queue());
		String concurrencyText = this.environment.resolveRequiredPlaceholders(listener.concurrency()).trim();
		int concurrency;
		try {
			concurrency = Integer.parseInt(concurrencyText);
		}
		catch (NumberFormatException ex) {
			throw new IllegalStateException(
					"@QueueListener.concurrency '" + concurrencyText + "' on " + method + " is not a number", ex);
		}
		if (queue.isBlank() || concurrency <= 0) {
			throw new IllegalStateException(
					"@QueueListener on " + method + " needs a queue name and a concurrency > 0");
		}
		DefaultQueueListenerContainer container = this.factory.getObject()
			.create(queue, concurrency, new MethodQueueMessageHandler(bean, method));
		synchronized (this) {
			this.containers.add(container);
			if (this.running) {
				container.start();
			}
		}
	}

	/**
	 * The containers of every listener found so far.
	 * @return the containers
	 */
	@Override
	public synchronized List<QueueListenerContainer> containers() {
		return List.copyOf(this.containers);
	}

	@Override
	public synchronized void start() {
		this.containers.forEach(DefaultQueueListenerContainer::start);
		this.running = true;
	}

	@Override
	public synchronized void stop() {
		this.running = false;
		this.containers.forEach(DefaultQueueListenerContainer::signalStop);
		// one deadline for all: the listeners of every container get shutdown-timeout
		// once, not one after the other
		long startedAt = System.nanoTime();
		this.containers.forEach((container) -> container.stop(startedAt));
	}

	@Override
	public synchronized boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

}
