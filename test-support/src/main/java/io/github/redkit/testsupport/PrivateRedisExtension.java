package io.github.redkit.testsupport;

import java.lang.reflect.Field;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.platform.commons.support.AnnotationSupport;
import org.junit.platform.commons.support.HierarchyTraversalMode;
import org.junit.platform.commons.support.ModifierSupport;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Starts the {@link PrivateRedis} servers and connection factories of a test class and
 * stops them after its tests.
 */
final class PrivateRedisExtension implements BeforeAllCallback {

	private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace
		.create(PrivateRedisExtension.class);

	@Override
	public void beforeAll(ExtensionContext context) throws Exception {
		Class<?> testClass = context.getRequiredTestClass();
		List<Field> fields = AnnotationSupport.findAnnotatedFields(testClass, PrivateRedis.class,
				ModifierSupport::isStatic, HierarchyTraversalMode.TOP_DOWN);
		if (fields.isEmpty() || context.getStore(NAMESPACE).get(testClass) != null) {
			return;
		}
		Resources resources = new Resources();
		// stored first, so that what started before a failure is still stopped
		context.getStore(NAMESPACE).put(testClass, resources);
		Map<String, RedisServer> servers = new LinkedHashMap<>();
		for (Field field : fields) {
			if (field.getType() == RedisServer.class) {
				RedisServer server = resources.started(RedisServers.startStandalone());
				servers.put(field.getName(), server);
				set(field, server);
			}
		}
		for (Field field : fields) {
			if (field.getType() == LettuceConnectionFactory.class) {
				RedisServer server = serverFor(field, servers);
				set(field, resources.started(server.createConnectionFactory()));
			}
			else if (field.getType() != RedisServer.class) {
				throw new ExtensionConfigurationException("@PrivateRedis field " + field.getName() + " of "
						+ testClass.getName() + " is a " + field.getType().getName()
						+ "; use a static RedisServer or LettuceConnectionFactory field");
			}
		}
	}

	private static RedisServer serverFor(Field field, Map<String, RedisServer> servers) {
		String name = field.getAnnotation(PrivateRedis.class).server();
		if (name.isEmpty() && servers.size() == 1) {
			return servers.values().iterator().next();
		}
		RedisServer server = servers.get(name);
		if (server == null) {
			throw new ExtensionConfigurationException("@PrivateRedis(server = \"" + name + "\") on " + field.getName()
					+ ": name one of the class's @PrivateRedis RedisServer fields " + servers.keySet());
		}
		return server;
	}

	private static void set(Field field, Object value) throws IllegalAccessException {
		field.setAccessible(true);
		field.set(null, value);
	}

	/**
	 * What a class started, stopped in the reverse order when its tests are done.
	 */
	private static final class Resources implements AutoCloseable {

		private final Deque<AutoCloseable> started = new ArrayDeque<>();

		<T extends RedisServer> T started(T server) {
			this.started.push(server);
			return server;
		}

		LettuceConnectionFactory started(LettuceConnectionFactory factory) {
			this.started.push(factory::destroy);
			return factory;
		}

		@Override
		public void close() throws Exception {
			Exception failure = null;
			while (!this.started.isEmpty()) {
				try {
					this.started.pop().close();
				}
				catch (Exception ex) {
					if (failure == null) {
						failure = ex;
					}
					else {
						failure.addSuppressed(ex);
					}
				}
			}
			if (failure != null) {
				throw failure;
			}
		}

	}

}
