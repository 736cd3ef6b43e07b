package io.github.redkit.core.internal;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.core.MethodClassKey;

/**
 * The interceptor behind each of Redkit's annotations: it finds the target class, reads a
 * method's annotation once per method and target class into an operation (so a bad
 * annotation fails on the first call, and later calls pay a map lookup), and hands the
 * call on with it. A method without the annotation proceeds untouched.
 *
 * @param <O> what is read from the annotation
 */
public abstract class RedkitInterceptor<O> implements MethodInterceptor {

	private static final Object NOT_ANNOTATED = new Object();

	private final Map<MethodClassKey, Object> operations = new ConcurrentHashMap<>(64);

	// each method's operation on the target class it was last called on, looked up by
	// the method alone: a call on that class makes no key
	private final Map<Method, Read> lastRead = new ConcurrentHashMap<>(64);

	@Override
	public final @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Object target = invocation.getThis();
		Method method = invocation.getMethod();
		O operation = operation(method,
				(target != null) ? AopUtils.getTargetClass(target) : method.getDeclaringClass());
		return (operation != null) ? invoke(invocation, operation) : invocation.proceed();
	}

	/**
	 * The operation of a method, read once.
	 * @param method the invoked method
	 * @param targetClass the target class
	 * @return the operation, or {@code null} when the method is not annotated
	 */
	@SuppressWarnings("unchecked")
	public final @Nullable O operation(Method method, Class<?> targetClass) {
		Read last = this.lastRead.get(method);
		if (last != null && last.targetClass() == targetClass) {
			return (last.operation() != NOT_ANNOTATED) ? (O) last.operation() : null;
		}
		MethodClassKey key = new MethodClassKey(method, targetClass);
		// read first: the look-up of every call then makes no function to read with
		Object operation = this.operations.get(key);
		if (operation == null) {
			operation = this.operations.computeIfAbsent(key, (k) -> {
				O read = read(AopUtils.getMostSpecificMethod(method, targetClass), method, targetClass);
				return (read != null) ? read : NOT_ANNOTATED;
			});
		}
		this.lastRead.put(method, new Read(targetClass, operation));
		return (operation != NOT_ANNOTATED) ? (O) operation : null;
	}

	/**
	 * Reads the annotation of a method.
	 * @param specificMethod the method as the target class declares it
	 * @param method the invoked method (an interface's, say)
	 * @param targetClass the target class
	 * @return the operation, or {@code null} when the method is not annotated
	 */
	protected abstract @Nullable O read(Method specificMethod, Method method, Class<?> targetClass);

	/**
	 * Runs an annotated call.
	 * @param invocation the call
	 * @param operation what its annotation says
	 * @return the call's result
	 * @throws Throwable what the call throws, or the capability's refusal
	 */
	protected abstract @Nullable Object invoke(MethodInvocation invocation, O operation) throws Throwable;

	/**
	 * A method's operation on one target class.
	 *
	 * @param targetClass the target class
	 * @param operation the operation, or {@code NOT_ANNOTATED}
	 */
	private record Read(Class<?> targetClass, Object operation) {

	}

}
