package io.github.redkit.faults;

import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Parameter;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.github.redkit.core.internal.LuaScript;
import io.github.redkit.core.internal.RedisScriptRunner;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;

import org.springframework.aop.framework.ProxyFactory;
import org.springframework.data.redis.core.script.DefaultRedisScript;

/**
 * An instance's script runner that sends one script with the lines that recognise a
 * command delivered again taken out: a build with the dedupe removed (issue 43). It
 * behaves as the real one until a connection is cut after a write and Lettuce sends the
 * command again, so only a run under {@link Fault#CUT_AFTER_WRITE} can show a checker
 * catching it.
 */
final class DedupeRemoved implements MethodInterceptor {

	private final String script;

	private final String dedupe;

	private final String replacement;

	private final Map<LuaScript<?>, LuaScript<?>> edited = new ConcurrentHashMap<>();

	private DedupeRemoved(String script, String dedupe, String replacement) {
		this.script = script;
		this.dedupe = dedupe;
		this.replacement = replacement;
	}

	/**
	 * Wraps a script runner.
	 * @param runner the instance's runner
	 * @param script the script's name
	 * @param dedupe the condition that recognises a command delivered again, as the
	 * script has it: it becomes {@code false}
	 * @return the broken runner
	 */
	static Object runner(RedisScriptRunner runner, String script, String dedupe) {
		return runner(runner, script, dedupe, "false");
	}

	/**
	 * Wraps a script runner.
	 * @param runner the instance's runner
	 * @param script the script's name
	 * @param dedupe the expression that recognises a command delivered again, as the
	 * script has it
	 * @param replacement what it becomes: what a first delivery would find
	 * @return the broken runner
	 */
	static Object runner(RedisScriptRunner runner, String script, String dedupe, String replacement) {
		ProxyFactory proxy = new ProxyFactory(runner);
		proxy.setProxyTargetClass(true);
		proxy.addAdvice(advice(script, dedupe, replacement));
		return proxy.getProxy(DedupeRemoved.class.getClassLoader());
	}

	/**
	 * The advice alone, for a runner proxy that does more.
	 * @param script the script's name
	 * @param dedupe the expression taken out
	 * @param replacement what it becomes
	 * @return the advice
	 */
	static MethodInterceptor advice(String script, String dedupe, String replacement) {
		return new DedupeRemoved(script, dedupe, replacement);
	}

	/**
	 * The SHA-1 of a script without its dedupe, as {@code EVALSHA} sends it.
	 * @param lua the script
	 * @param dedupe the expression taken out
	 * @param replacement what it becomes
	 * @return the edited script's SHA-1
	 */
	static String sha1(LuaScript<?> lua, String dedupe, String replacement) {
		return edit(lua, dedupe, replacement).redisScript().getSha1();
	}

	@Override
	public Object invoke(MethodInvocation invocation) throws Throwable {
		Object[] args = invocation.getArguments();
		if (args.length > 0 && args[0] instanceof LuaScript<?> lua && lua.name().equals(this.script)) {
			args[0] = this.edited.computeIfAbsent(lua, (original) -> edit(original, this.dedupe, this.replacement));
		}
		return invocation.proceed();
	}

	/**
	 * A script without its dedupe, sent as the original is (its flags kept).
	 * @param lua the script
	 * @param dedupe the expression taken out
	 * @param replacement what it becomes
	 * @return the edited script
	 */
	static LuaScript<?> edit(LuaScript<?> lua, String dedupe, String replacement) {
		String source = lua.redisScript().getScriptAsString();
		if (!source.contains(dedupe)) {
			// a script that changed must not leave a build that is not broken at all
			throw new IllegalStateException("The script " + lua.name() + " no longer has: " + dedupe);
		}
		return script(lua, source.replace(dedupe, replacement));
	}

	// the library makes scripts from its own files only: a test may make others. The
	// constructor's arguments are read by name from the original's fields, so that a flag
	// LuaScript gains is kept rather than leaving the soak's broken builds unmade (the
	// arguments' names are compiled in: -parameters)
	private static LuaScript<?> script(LuaScript<?> original, String source) {
		Constructor<?>[] constructors = LuaScript.class.getDeclaredConstructors();
		if (constructors.length != 1) {
			throw new IllegalStateException("LuaScript has " + constructors.length + " constructors: expected one");
		}
		Constructor<?> constructor = constructors[0];
		Parameter[] parameters = constructor.getParameters();
		Object[] arguments = new Object[parameters.length];
		try {
			for (int i = 0; i < parameters.length; i++) {
				String name = parameters[i].getName();
				arguments[i] = name.equals("script")
						? new DefaultRedisScript<>(source, original.redisScript().getResultType())
						: field(name).get(original);
			}
			constructor.setAccessible(true);
			return (LuaScript<?>) constructor.newInstance(arguments);
		}
		catch (ReflectiveOperationException ex) {
			throw new IllegalStateException("Cannot make a script without its dedupe", ex);
		}
	}

	private static Field field(String name) throws NoSuchFieldException {
		Field field = LuaScript.class.getDeclaredField(name);
		field.setAccessible(true);
		return field;
	}

}
