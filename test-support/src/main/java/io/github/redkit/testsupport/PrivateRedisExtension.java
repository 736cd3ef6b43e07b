package io.github.redkit.testsupport;

import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.platform.commons.support.AnnotationSupport;
import org.junit.platform.commons.support.HierarchyTraversalMode;
import org.junit.platform.commons.support.ModifierSupport;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Starts the {@link PrivateRedis} servers, nodes and connection factories of a test class
 * (or method parameter) and stops them after its tests (or the test); starts a class's
 * {@link PrivateRedis#ofTopology() ofTopology} server for each topology it runs on;
 * disables what asks for a node with a movable clock where none can be started.
 */
final class PrivateRedisExtension
		implements BeforeAllCallback, BeforeEachCallback, ParameterResolver, ExecutionCondition {

	private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace
		.create(PrivateRedisExtension.class);

	/** What a field or parameter of its own type starts. */
	private static final Set<Class<?>> STARTED = Set.of(RedisServer.class, SentinelRedisServer.class, RedisNode.class);

	@Override
	public void beforeAll(ExtensionContext context) throws Exception {
		Class<?> testClass = context.getRequiredTestClass();
		List<Field> fields = AnnotationSupport.findAnnotatedFields(testClass, PrivateRedis.class, (field) -> true,
				HierarchyTraversalMode.TOP_DOWN);
		for (Field field : fields) {
			if (!ModifierSupport.isStatic(field)) {
				// a field of each test instance would stay null: the servers are the
				// class's
				throw new ExtensionConfigurationException("@PrivateRedis field " + field.getName() + " of "
						+ field.getDeclaringClass().getName() + " is not static; make it static (the class's "
						+ "server), or take a @PrivateRedis parameter for a test's own");
			}
		}
		if (fields.isEmpty() || context.getStore(NAMESPACE).get(testClass) != null) {
			return;
		}
		Resources resources = new Resources();
		// stored first, so that what started before a failure is still stopped
		context.getStore(NAMESPACE).put(testClass, resources);
		Map<String, List<RedisServer>> servers = new LinkedHashMap<>();
		for (Field field : fields) {
			PrivateRedis annotation = field.getAnnotation(PrivateRedis.class);
			if (annotation.ofTopology()) {
				if (field.getType() != RedisServer.class) {
					throw new ExtensionConfigurationException("@PrivateRedis(ofTopology = true) " + field.getName()
							+ " is a " + field.getGenericType().getTypeName() + "; use a static RedisServer field");
				}
				// started before the first test of each topology (beforeEach)
			}
			else if (field.getType() == RedisServer.class || field.getType() == SentinelRedisServer.class) {
				RedisServer server = resources.started(start(annotation, field.getType(), field.getName()));
				servers.put(field.getName(), List.of(server));
				set(field, server);
			}
			else if (field.getType() == RedisNode.class) {
				set(field, resources.started(startNode(annotation, field.getName())));
			}
			else if (isListOf(field, RedisServer.class)) {
				if (annotation.count() < 1) {
					throw new ExtensionConfigurationException(
							"@PrivateRedis(count = " + annotation.count() + ") on " + field.getName() + ": at least 1");
				}
				List<RedisServer> started = new ArrayList<>();
				for (int i = 0; i < annotation.count(); i++) {
					started.add(resources.started(start(annotation, RedisServer.class, field.getName())));
				}
				servers.put(field.getName(), List.copyOf(started));
				set(field, List.copyOf(started));
			}
		}
		for (Field field : fields) {
			if (field.getType() == LettuceConnectionFactory.class) {
				List<RedisServer> named = serversFor(field, servers);
				if (named.size() != 1) {
					throw new ExtensionConfigurationException("@PrivateRedis LettuceConnectionFactory "
							+ field.getName() + " names a list of servers: make it a List<LettuceConnectionFactory>");
				}
				set(field, resources.started(named.get(0).createConnectionFactory()));
			}
			else if (isListOf(field, LettuceConnectionFactory.class)) {
				List<LettuceConnectionFactory> factories = new ArrayList<>();
				for (RedisServer server : serversFor(field, servers)) {
					factories.add(resources.started(server.createConnectionFactory()));
				}
				set(field, List.copyOf(factories));
			}
			else if (field.getType() == ProxiedCluster.class) {
				List<RedisServer> named = serversFor(field, servers);
				if (named.size() != 1 || !named.get(0).isCluster()) {
					throw new ExtensionConfigurationException("@PrivateRedis ProxiedCluster " + field.getName()
							+ " names no cluster: name a @PrivateRedis(cluster = true) RedisServer field");
				}
				set(field, resources.started(ProxiedCluster.of(named.get(0))));
			}
			else if (!STARTED.contains(field.getType()) && !isListOf(field, RedisServer.class)) {
				throw new ExtensionConfigurationException("@PrivateRedis field " + field.getName() + " of "
						+ testClass.getName() + " is a " + field.getGenericType().getTypeName()
						+ "; use a static RedisServer, SentinelRedisServer, RedisNode, LettuceConnectionFactory or "
						+ "ProxiedCluster field, or a List of RedisServer or LettuceConnectionFactory");
			}
		}
	}

	/**
	 * Starts the class's {@code ofTopology} servers before the first test of each
	 * topology: a {@code @ParameterizedClass} runs its tests topology by topology, and a
	 * test instance knows its topology only once created. They are closed once that
	 * topology's tests are done.
	 */
	@Override
	public void beforeEach(ExtensionContext context) throws Exception {
		List<Field> fields = AnnotationSupport.findAnnotatedFields(context.getRequiredTestClass(), PrivateRedis.class,
				(field) -> ModifierSupport.isStatic(field) && field.getAnnotation(PrivateRedis.class).ofTopology(),
				HierarchyTraversalMode.TOP_DOWN);
		if (fields.isEmpty()) {
			return;
		}
		ExtensionContext invocation = classInvocation(context);
		// keyed by the invocation, as a store answers from its parents'
		String key = invocation.getUniqueId() + "/ofTopology";
		if (invocation.getStore(NAMESPACE).get(key) != null) {
			return;
		}
		Resources resources = new Resources();
		invocation.getStore(NAMESPACE).put(key, resources);
		for (Field field : fields) {
			set(field, resources.started(RedisServers.startLike(topology(context, field.getName()))));
		}
	}

	// the context of the class's run on one topology (of the class, if not parameterized)
	private static ExtensionContext classInvocation(ExtensionContext context) {
		ExtensionContext current = context;
		while (current.getTestMethod().isPresent() && current.getParent().isPresent()) {
			current = current.getParent().get();
		}
		return current;
	}

	@Override
	public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
		return parameterContext.isAnnotated(PrivateRedis.class)
				&& STARTED.contains(parameterContext.getParameter().getType());
	}

	@Override
	public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
		PrivateRedis annotation = parameterContext.findAnnotation(PrivateRedis.class).orElseThrow();
		// closed with the store of the context that resolved it (a test's, or a class's
		// for a @BeforeAll parameter); keyed by that context, as a store answers from
		// its parents'
		Resources resources = extensionContext.getStore(NAMESPACE)
			.computeIfAbsent(extensionContext.getUniqueId(), (key) -> new Resources(), Resources.class);
		Parameter parameter = parameterContext.getParameter();
		if (parameter.getType() == RedisNode.class) {
			return resources.started(startNode(annotation, parameter.getName()));
		}
		if (annotation.ofTopology()) {
			return resources.started(RedisServers.startLike(topology(extensionContext, parameter.getName())));
		}
		return resources.started(start(annotation, parameter.getType(), parameter.getName()));
	}

	// the topology the test instance runs on: its @Parameter field of that type
	private static RedisTopology topology(ExtensionContext context, String name) {
		Object instance = context.getRequiredTestInstance();
		List<Field> fields = AnnotationSupport.findAnnotatedFields(instance.getClass(),
				org.junit.jupiter.params.Parameter.class, (field) -> field.getType() == RedisTopology.class,
				HierarchyTraversalMode.TOP_DOWN);
		if (fields.size() != 1) {
			throw new ExtensionConfigurationException("@PrivateRedis(ofTopology = true) " + name
					+ ": the test class needs one @Parameter RedisTopology field (@RedisTopologies)");
		}
		try {
			fields.get(0).setAccessible(true);
			return (RedisTopology) fields.get(0).get(instance);
		}
		catch (IllegalAccessException ex) {
			throw new ExtensionConfigurationException("@PrivateRedis(ofTopology = true) " + name, ex);
		}
	}

	/**
	 * Disables a test class with a static node field, or a test with a node parameter,
	 * that asks for a movable clock where none can be started.
	 */
	@Override
	public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
		AnnotatedElement element = context.getElement().orElse(null);
		List<? extends AnnotatedElement> declared = List.of();
		if (element instanceof Method method) {
			declared = List.of(method.getParameters());
		}
		else if (element instanceof Class<?> testClass) {
			declared = AnnotationSupport.findAnnotatedFields(testClass, PrivateRedis.class, ModifierSupport::isStatic,
					HierarchyTraversalMode.TOP_DOWN);
		}
		boolean movableClock = declared.stream()
			.map((annotated) -> annotated.getAnnotation(PrivateRedis.class))
			.anyMatch((annotation) -> annotation != null && annotation.movableClock());
		if (movableClock && !RedisNode.movableClockAvailable()) {
			return ConditionEvaluationResult.disabled("a @PrivateRedis(movableClock = true) node needs Debian's "
					+ "libfaketime and the embedded-redis binary, which are not both here");
		}
		return ConditionEvaluationResult.enabled("no node with a movable clock asked for, or one can be started");
	}

	private static RedisNode startNode(PrivateRedis annotation, String name) {
		if (annotation.cluster() || annotation.process() || annotation.arguments().length > 0
				|| annotation.count() != 1) {
			throw new ExtensionConfigurationException("@PrivateRedis RedisNode " + name
					+ ": a node is one redis-server process (with a replica if replica = true); it takes "
					+ "neither cluster, process, arguments nor count");
		}
		if (annotation.movableClock()) {
			return annotation.replica() ? RedisNode.startWithReplica(true)
					: RedisNode.startWithMovableClock().orElseThrow();
		}
		return annotation.replica() ? RedisNode.startWithReplica(false) : RedisNode.start();
	}

	private static RedisServer start(PrivateRedis annotation, Class<?> type, String name) {
		if (annotation.replica() || annotation.movableClock()) {
			throw new ExtensionConfigurationException("@PrivateRedis on " + name
					+ ": replica and movableClock are a RedisNode's; declare a RedisNode for a fault test's node");
		}
		if (type == SentinelRedisServer.class) {
			if (annotation.cluster() || annotation.process() || annotation.arguments().length > 0) {
				throw new ExtensionConfigurationException("@PrivateRedis SentinelRedisServer " + name
						+ ": a Sentinel deployment takes neither cluster, process nor arguments");
			}
			return RedisServers.startSentinel(Duration.ofMillis(annotation.sentinelDownAfterMillis()),
					annotation.sentinelReplicas());
		}
		if (annotation.cluster()) {
			if (annotation.arguments().length > 0 || annotation.process()) {
				throw new ExtensionConfigurationException(
						"@PrivateRedis on " + name + ": a cluster takes neither arguments nor process = true");
			}
			return RedisServers.startCluster();
		}
		if (annotation.arguments().length > 0 || annotation.process()) {
			return RedisServers.startStandalone(List.of(annotation.arguments()));
		}
		return RedisServers.startStandalone();
	}

	private static boolean isListOf(Field field, Class<?> element) {
		Type type = field.getGenericType();
		return field.getType() == List.class && type instanceof ParameterizedType parameterized
				&& parameterized.getActualTypeArguments()[0] == element;
	}

	private static List<RedisServer> serversFor(Field field, Map<String, List<RedisServer>> servers) {
		String name = field.getAnnotation(PrivateRedis.class).server();
		if (name.isEmpty() && servers.size() == 1) {
			return servers.values().iterator().next();
		}
		List<RedisServer> named = servers.get(name);
		if (named == null) {
			throw new ExtensionConfigurationException("@PrivateRedis(server = \"" + name + "\") on " + field.getName()
					+ ": name one of the class's @PrivateRedis RedisServer fields " + servers.keySet());
		}
		return named;
	}

	private static void set(Field field, Object value) throws IllegalAccessException {
		field.setAccessible(true);
		field.set(null, value);
	}

	/**
	 * What a class (or a test) started, stopped in the reverse order when its tests (or
	 * it) are done.
	 */
	private static final class Resources implements AutoCloseable {

		private final Deque<AutoCloseable> started = new ArrayDeque<>();

		<T extends AutoCloseable> T started(T resource) {
			this.started.push(resource);
			return resource;
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
