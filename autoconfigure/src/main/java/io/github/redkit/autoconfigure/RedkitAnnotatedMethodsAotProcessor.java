package io.github.redkit.autoconfigure;

import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;

import io.github.redkit.idempotency.IdempotentStep;
import io.github.redkit.queue.QueueListener;
import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.ExecutableMode;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Registers, ahead of time, what Redkit does reflectively with an application's own
 * beans: it invokes {@link QueueListener @QueueListener} methods and reads their payloads
 * as JSON, and reads the recorded results of {@link IdempotentStep @IdempotentStep}
 * methods back as JSON.
 */
class RedkitAnnotatedMethodsAotProcessor implements BeanRegistrationAotProcessor {

	@Override
	public @Nullable BeanRegistrationAotContribution processAheadOfTime(RegisteredBean registeredBean) {
		Class<?> beanClass = registeredBean.getBeanClass();
		List<Method> listeners = new ArrayList<>();
		List<Type> jsonTypes = new ArrayList<>();
		ReflectionUtils.doWithMethods(beanClass, (method) -> {
			if (AnnotatedElementUtils.hasAnnotation(method, QueueListener.class)) {
				listeners.add(method);
				jsonTypes.add(method.getGenericParameterTypes()[0]);
			}
			if (AnnotatedElementUtils.hasAnnotation(method, IdempotentStep.class)
					&& method.getReturnType() != void.class) {
				jsonTypes.add(method.getGenericReturnType());
			}
		}, (method) -> method.getParameterCount() <= 1
				|| AnnotatedElementUtils.hasAnnotation(method, IdempotentStep.class));
		if (listeners.isEmpty() && jsonTypes.isEmpty()) {
			return null;
		}
		return (context, code) -> {
			BindingReflectionHintsRegistrar binding = new BindingReflectionHintsRegistrar();
			for (Method listener : listeners) {
				context.getRuntimeHints().reflection().registerMethod(listener, ExecutableMode.INVOKE);
			}
			binding.registerReflectionHints(context.getRuntimeHints().reflection(), jsonTypes.toArray(Type[]::new));
		};
	}

}
