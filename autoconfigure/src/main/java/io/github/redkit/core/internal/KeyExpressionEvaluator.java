package io.github.redkit.core.internal;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.redkit.core.KeyExpressionException;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.AnnotatedElementKey;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.CachedExpressionEvaluator;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.expression.Expression;
import org.springframework.expression.ExpressionException;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelCompilerMode;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.SpelParserConfiguration;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;

/**
 * Evaluates the SpEL key expressions of Redkit's annotations: method arguments by name
 * ({@code #userId}) or position ({@code #p0}), {@code #root.method},
 * {@code #root.target}, {@code #root.args}, and beans ({@code @tenants.current()}).
 * Expressions are parsed once per method and cached. A key must not be null, empty or
 * blank: that is an error, never a key named "null".
 */
public class KeyExpressionEvaluator extends CachedExpressionEvaluator {

	private static final Pattern PLAIN_ARGUMENT = Pattern.compile("#([A-Za-z_][A-Za-z0-9_]*)");

	private static final Pattern POSITIONAL_ARGUMENT = Pattern.compile("[pa](\\d+)");

	private static final SpelExpressionParser CHECKER = new SpelExpressionParser();

	private final Map<ExpressionKey, Expression> expressions = new ConcurrentHashMap<>(64);

	private final Map<TargetKey, Target> targets = new ConcurrentHashMap<>(64);

	// each method's last resolved expression, looked up by the method alone: a call with
	// the same target class and expression makes no key
	private final Map<Method, Resolved> lastResolved = new ConcurrentHashMap<>(64);

	private final Map<String, List<String>> variables = new ConcurrentHashMap<>(64);

	private final @Nullable BeanFactoryResolver beanResolver;

	/**
	 * Creates an evaluator.
	 * @param beanFactory resolves {@code @beanName} references, may be {@code null}
	 */
	public KeyExpressionEvaluator(@Nullable BeanFactory beanFactory) {
		super(new SpelExpressionParser(
				new SpelParserConfiguration(SpelCompilerMode.MIXED, KeyExpressionEvaluator.class.getClassLoader())));
		this.beanResolver = (beanFactory != null) ? new BeanFactoryResolver(beanFactory) : null;
	}

	/**
	 * Checks that an annotation's expression parses, when the annotation is read (at
	 * start-up), rather than on the first call.
	 * @param expression the SpEL expression
	 * @param where the annotation's attribute and method, for the message
	 * @throws IllegalStateException when it does not parse
	 */
	public static void validate(String expression, String where) {
		try {
			CHECKER.parseExpression(expression);
		}
		catch (ParseException ex) {
			// not chained: the message says all, and the root cause of a failed start-up
			// names the method
			throw new IllegalStateException(
					where + ": '" + expression + "' is not a valid SpEL expression: " + ex.getMessage());
		}
	}

	/**
	 * Evaluates a key expression for one invocation.
	 * @param expression the SpEL expression
	 * @param method the invoked method
	 * @param target the target object
	 * @param args the arguments
	 * @return the key, never null or empty
	 * @throws KeyExpressionException when the expression is invalid, fails, or yields
	 * null, an empty or a blank string
	 */
	public String evaluate(String expression, Method method, @Nullable Object target, @Nullable Object[] args) {
		Class<?> targetClass = (target != null) ? AopUtils.getTargetClass(target) : method.getDeclaringClass();
		Target resolved = target(method, targetClass, expression);
		Method specificMethod = resolved.specificMethod();
		int argument = resolved.argument();
		if (argument >= 0) {
			// '#userId' alone: no evaluation context needed
			return checked(expression, specificMethod, args[argument]);
		}
		@Nullable Object value;
		try {
			Expression parsed = getExpression(this.expressions, new AnnotatedElementKey(specificMethod, targetClass),
					expression);
			MethodBasedEvaluationContext context = context(specificMethod, target, args);
			rejectNullArguments(expression, parsed, context, specificMethod);
			value = parsed.getValue(context);
		}
		catch (ExpressionException ex) {
			throw new KeyExpressionException("Key expression '" + expression + "' on " + describe(specificMethod)
					+ " failed: " + ex.getMessage(), ex);
		}
		return checked(expression, specificMethod, value);
	}

	/**
	 * The most specific method and the argument an expression names, found once per
	 * method, target class and expression.
	 */
	private Target target(Method method, Class<?> targetClass, String expression) {
		Resolved last = this.lastResolved.get(method);
		if (last != null && last.targetClass() == targetClass
				&& (last.expression() == expression || last.expression().equals(expression))) {
			return last.target();
		}
		TargetKey targetKey = new TargetKey(method, targetClass, expression);
		Target resolved = this.targets.get(targetKey);
		if (resolved == null) {
			// read first: a call that finds it makes no function to compute it with
			resolved = this.targets.computeIfAbsent(targetKey, (key) -> {
				Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
				return new Target(specific, plainArgument(expression, specific));
			});
		}
		this.lastResolved.put(method, new Resolved(targetClass, expression, resolved));
		return resolved;
	}

	/**
	 * Evaluates an expression once a call has ended, over its arguments, {@code #result}
	 * (the value it returned, or emitted last) and {@code #exception} (what it threw),
	 * each {@code null} when there is none.
	 * @param <T> the type wanted
	 * @param expression the SpEL expression
	 * @param method the invoked method
	 * @param target the target object
	 * @param args the arguments
	 * @param result what the call returned
	 * @param exception what the call threw
	 * @param type the type wanted
	 * @return the value, {@code null} when the expression yields none
	 * @throws KeyExpressionException when the expression is invalid or fails
	 */
	public <T> @Nullable T evaluateAfter(String expression, Method method, @Nullable Object target,
			@Nullable Object[] args, @Nullable Object result, @Nullable Throwable exception, Class<T> type) {
		Class<?> targetClass = (target != null) ? AopUtils.getTargetClass(target) : method.getDeclaringClass();
		Method specificMethod = this.targets
			.computeIfAbsent(new TargetKey(method, targetClass, expression),
					(key) -> new Target(AopUtils.getMostSpecificMethod(method, targetClass), -1))
			.specificMethod();
		try {
			Expression parsed = getExpression(this.expressions, new AnnotatedElementKey(specificMethod, targetClass),
					expression);
			MethodBasedEvaluationContext context = context(specificMethod, target, args);
			context.setVariable("result", result);
			context.setVariable("exception", exception);
			return parsed.getValue(context, type);
		}
		catch (ExpressionException ex) {
			throw new KeyExpressionException(
					"Expression '" + expression + "' on " + describe(specificMethod) + " failed: " + ex.getMessage(),
					ex);
		}
	}

	private MethodBasedEvaluationContext context(Method method, @Nullable Object target, @Nullable Object[] args) {
		MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(
				new KeyExpressionRoot(method, target, args), method, args, getParameterNameDiscoverer());
		if (this.beanResolver != null) {
			context.setBeanResolver(this.beanResolver);
		}
		return context;
	}

	private static String checked(String expression, Method method, @Nullable Object value) {
		if (value == null) {
			throw new KeyExpressionException("Key expression '" + expression + "' on " + describe(method)
					+ " evaluated to null; a key needs a value (check the argument names, compile with -parameters)");
		}
		String key = value.toString();
		if (key.isEmpty()) {
			throw new KeyExpressionException(
					"Key expression '" + expression + "' on " + describe(method) + " evaluated to an empty key");
		}
		if (key.isBlank()) {
			// refused as every capability refuses it, before anything is taken
			throw new KeyExpressionException(
					"Key expression '" + expression + "' on " + describe(method) + " evaluated to a blank key");
		}
		return key;
	}

	/**
	 * The index of the argument an expression names when it is nothing else
	 * ({@code #userId}, {@code #p0}, {@code #a0}), else -1.
	 */
	private int plainArgument(String expression, Method method) {
		Matcher matcher = PLAIN_ARGUMENT.matcher(expression.trim());
		if (!matcher.matches()) {
			return -1;
		}
		String name = matcher.group(1);
		String[] names = getParameterNameDiscoverer().getParameterNames(method);
		for (int i = 0; names != null && i < names.length; i++) {
			if (names[i].equals(name)) {
				return i;
			}
		}
		Matcher positional = POSITIONAL_ARGUMENT.matcher(name);
		if (positional.matches()) {
			int index = Integer.parseInt(positional.group(1));
			return (index < method.getParameterCount()) ? index : -1;
		}
		return -1;
	}

	private void rejectNullArguments(String expression, Expression parsed, MethodBasedEvaluationContext context,
			Method method) {
		for (String variable : this.variables.computeIfAbsent(expression, (key) -> variables(parsed))) {
			if (context.lookupVariable(variable) == null) {
				throw new KeyExpressionException("Key expression '" + expression + "' on " + describe(method)
						+ ": argument '" + variable + "' is null; a key built from it would contain \"null\"");
			}
		}
	}

	/**
	 * The variables an expression uses without handling null itself (no {@code ?.},
	 * {@code ?:} or {@code ? :} anywhere in it).
	 */
	private static List<String> variables(Expression parsed) {
		if (!(parsed instanceof SpelExpression spel) || parsed.getExpressionString().contains("?")) {
			return List.of();
		}
		List<String> variables = new ArrayList<>();
		collectVariables(spel.getAST(), variables);
		return variables;
	}

	private static void collectVariables(SpelNode node, List<String> variables) {
		if (node instanceof VariableReference) {
			String name = node.toStringAST().substring(1);
			if (!name.equals("root") && !name.equals("this")) {
				variables.add(name);
			}
		}
		for (int i = 0; i < node.getChildCount(); i++) {
			collectVariables(node.getChild(i), variables);
		}
	}

	private static String describe(Method method) {
		return method.getDeclaringClass().getSimpleName() + "." + method.getName() + "()";
	}

	private record TargetKey(Method method, Class<?> targetClass, String expression) {
	}

	/**
	 * What an expression on a method resolves to: the method as the target class declares
	 * it, and the argument the expression names alone (else -1).
	 */
	private record Target(Method specificMethod, int argument) {
	}

	/**
	 * What an expression on a method resolved to on a target class.
	 */
	private record Resolved(Class<?> targetClass, String expression, Target target) {
	}

	/**
	 * The root object of a key expression.
	 *
	 * @param method the invoked method
	 * @param target the target object
	 * @param args the arguments
	 */
	public record KeyExpressionRoot(Method method, @Nullable Object target, @Nullable Object[] args) {

		/**
		 * The invoked method's name.
		 * @return the name
		 */
		public String methodName() {
			return this.method.getName();
		}

		/**
		 * The target's class.
		 * @return the class
		 */
		public Class<?> targetClass() {
			return (this.target != null) ? AopUtils.getTargetClass(this.target) : this.method.getDeclaringClass();
		}

	}

}
