package io.github.redkit.idempotency.internal;

import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.aop.support.AopUtils;
import org.springframework.context.expression.AnnotatedElementKey;
import org.springframework.context.expression.CachedExpressionEvaluator;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.expression.Expression;

/**
 * Reads stored step results back as a method's return type, and turns a request payload
 * into a fingerprint (SHA-256 of its JSON), with the application's JSON mapper.
 */
public class StepResults extends CachedExpressionEvaluator {

	private final Map<ExpressionKey, Expression> expressions = new ConcurrentHashMap<>(32);

	private final JsonMapper jsonMapper;

	/**
	 * Creates a reader.
	 * @param jsonMapper the JSON mapper
	 */
	public StepResults(JsonMapper jsonMapper) {
		this.jsonMapper = jsonMapper;
	}

	/**
	 * Reads a stored result.
	 * @param json the stored JSON, may be {@code null}
	 * @param type the method's return type, {@code null} for {@code void}
	 * @return the value
	 */
	@Nullable Object read(@Nullable String json, @Nullable Type type) {
		if (json == null || type == null) {
			return null;
		}
		return this.jsonMapper.readValue(json, this.jsonMapper.getTypeFactory().constructType(type));
	}

	/**
	 * Evaluates a fingerprint expression and hashes the JSON of its value.
	 * @param expression the SpEL expression
	 * @param method the invoked method
	 * @param target the target
	 * @param args the arguments
	 * @return the fingerprint
	 */
	String fingerprint(String expression, Method method, @Nullable Object target, @Nullable Object[] args) {
		Class<?> targetClass = (target != null) ? AopUtils.getTargetClass(target) : method.getDeclaringClass();
		Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
		Expression parsed = getExpression(this.expressions, new AnnotatedElementKey(specific, targetClass), expression);
		Object value = parsed
			.getValue(new MethodBasedEvaluationContext(target, specific, args, getParameterNameDiscoverer()));
		try {
			byte[] digest = MessageDigest.getInstance("SHA-256").digest(this.jsonMapper.writeValueAsBytes(value));
			return Base64.getUrlEncoder().withoutPadding().encodeToString(digest);
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-256 is required by every JVM", ex);
		}
	}

}
