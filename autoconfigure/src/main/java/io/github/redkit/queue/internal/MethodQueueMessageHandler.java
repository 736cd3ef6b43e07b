package io.github.redkit.queue.internal;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Type;

import io.github.redkit.queue.QueueListener;
import io.github.redkit.queue.QueueMessageHandler;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;
import org.springframework.util.ReflectionUtils;

/**
 * Calls a {@link QueueListener @QueueListener} method with the payload.
 */
final class MethodQueueMessageHandler implements QueueMessageHandler {

	private final Object bean;

	private final Method method;

	MethodQueueMessageHandler(Object bean, Method method) {
		Assert.isTrue(method.getParameterCount() == 1,
				() -> "@QueueListener method " + method + " must take exactly one parameter, the payload");
		this.bean = bean;
		this.method = method;
		ReflectionUtils.makeAccessible(method);
	}

	@Override
	public Type payloadType() {
		return this.method.getGenericParameterTypes()[0];
	}

	@Override
	public void handle(@Nullable Object payload) throws Exception {
		try {
			this.method.invoke(this.bean, payload);
		}
		catch (InvocationTargetException ex) {
			if (ex.getCause() instanceof Exception cause) {
				throw cause;
			}
			if (ex.getCause() instanceof Error error) {
				throw error;
			}
			throw ex;
		}
	}

	@Override
	public String toString() {
		return this.method.getDeclaringClass().getSimpleName() + "." + this.method.getName() + "()";
	}

}
