package io.github.redkit.faults;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.UnaryOperator;

import reactor.core.publisher.Mono;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * Breaks a capability's beans of an instance on purpose, as a property names
 * ({@code faults.broken=A,B}), so that a test can show a checker catching a broken build:
 * each bean of the given types is wrapped in a proxy whose calls a subclass bends.
 *
 * @param <B> the scenario's kinds of breakage
 */
abstract class BrokenBuild<B extends Enum<B>> implements BeanPostProcessor, EnvironmentAware {

	private final String property;

	private final Class<B> kinds;

	private final List<Class<?>> targets;

	private final Set<B> breakages;

	BrokenBuild(String property, Class<B> kinds, Class<?>... targets) {
		this.property = property;
		this.kinds = kinds;
		this.targets = List.of(targets);
		this.breakages = EnumSet.noneOf(kinds);
	}

	@Override
	public void setEnvironment(Environment environment) {
		Arrays.stream(environment.getProperty(this.property, String[].class, new String[0]))
			.map((name) -> Enum.valueOf(this.kinds, name))
			.filter((kind) -> !kind.name().equals("NONE"))
			.forEach(this.breakages::add);
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (this.breakages.isEmpty() || this.targets.stream().noneMatch((type) -> type.isInstance(bean))) {
			return bean;
		}
		return Proxy.newProxyInstance(getClass().getClassLoader(), ClassUtils.getAllInterfaces(bean),
				(proxy, method, args) -> call(bean, method, args));
	}

	/**
	 * Whether the build is broken this way.
	 * @param breakage the kind of breakage
	 * @return whether the property names it
	 */
	final boolean broken(B breakage) {
		return this.breakages.contains(breakage);
	}

	/**
	 * One call on a broken bean: by default the bean's own answer.
	 * @param bean the bean
	 * @param method the method called
	 * @param args its arguments
	 * @return the answer the caller gets
	 * @throws Throwable what the bean threw
	 */
	Object call(Object bean, Method method, Object[] args) throws Throwable {
		return invoke(bean, method, args);
	}

	static Object invoke(Object target, Method method, Object... args) throws Throwable {
		try {
			return method.invoke(target, args);
		}
		catch (InvocationTargetException ex) {
			throw ex.getTargetException();
		}
	}

	/**
	 * Bends an answer however it comes: at once, in a future or in a {@code Mono}.
	 * @param answer the bean's answer
	 * @param bend what to do with the value
	 * @return the bent answer, of the same shape
	 */
	static Object bend(Object answer, UnaryOperator<Object> bend) {
		if (answer instanceof Mono<?> mono) {
			return mono.map(bend);
		}
		if (answer instanceof CompletableFuture<?> future) {
			return future.thenApply(bend);
		}
		return (answer != null) ? bend.apply(answer) : null;
	}

}
