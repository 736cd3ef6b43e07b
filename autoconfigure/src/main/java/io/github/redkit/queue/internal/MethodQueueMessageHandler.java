package io.github.redkit.queue.internal;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;

import io.github.redkit.queue.QueueListener;
import io.github.redkit.queue.QueueMessage;
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
		Assert.isTrue(method.getParameterCount() == 1, () -> "@QueueListener method " + method
				+ " must take exactly one parameter, the payload or the QueueMessage");
		this.bean = bean;
		this.method = method;
		ReflectionUtils.makeAccessible(method);
	}

	@Override
	public Type payloadType() {
		Type parameter = this.method.getGenericParameterTypes()[0];
		if (wantsMessage()) {
			// QueueMessage<T>: the payload is read into T (a raw QueueMessage: as JSON
			// reads it)
			return (parameter instanceof ParameterizedType generic) ? generic.getActualTypeArguments()[0]
					: Object.class;
		}
		return parameter;
	}

	private boolean wantsMessage() {
		return QueueMessage.class.equals(this.method.getParameterTypes()[0]);
	}

	@Override
	public void handle(QueueMessage<?> message) throws Exception {
		invoke(wantsMessage() ? message : message.payload());
	}

	@Override
	public void handle(@Nullable Object payload) throws Exception {
		invoke(payload);
	}

	private void invoke(@Nullable Object argument) throws Exception {
		try {
			this.method.invoke(this.bean, argument);
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
