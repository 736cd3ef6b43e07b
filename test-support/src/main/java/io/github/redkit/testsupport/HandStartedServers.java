package io.github.redkit.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

import com.tngtech.archunit.ArchConfiguration;
import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.AccessTarget;
import com.tngtech.archunit.core.domain.JavaAccess;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.Source;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * The rule of {@code docs/testing.md} for a Redis of a test's own, read from compiled
 * classes: no test code, and no module's main code but the classes listed, starts one by
 * hand (a static {@code @PrivateRedis} field or a test's {@code @PrivateRedis} parameter
 * has this module do it and stop it). A call, a method reference or a constructor call of
 * the starting API breaks it however the source spells it (a static import, a reference,
 * a call over several lines): the {@code start*} methods of {@link RedisServers},
 * {@link RedisNode} and {@link SentinelRedisServer}, a server's
 * {@link RedisServer#start()} where the same method stopped none (a restart),
 * embedded-redis' servers, a Testcontainers container of any package, and a process (a
 * {@link ProcessBuilder}, {@link Runtime#exec(String[])}) started by a class that names a
 * server's command ({@code redis-server}, {@code valkey-server}, their Sentinels) or
 * takes it from {@link RedisBinary}, itself or through a class of its module it uses.
 * {@link HandStartedServersTests} holds it in every module whose tests depend on this
 * one.
 */
public final class HandStartedServers {

	/**
	 * The classes (top-level, by name), of tests or of a module's main code, that start
	 * servers themselves on purpose, and why; their nested classes and lambdas are
	 * theirs.
	 */
	public static final Map<String, String> ON_PURPOSE = Map.of("io.github.redkit.sample.EmbeddedRedisTests",
			"the configured Redis comes up on a given port mid-test, while the application waits for it",
			"io.github.redkit.faults.FaultRun",
			"the fault harness starts the nodes of each run (a seed, a scenario) as the run asks for them",
			"io.github.redkit.benchmarks.BenchmarkMain",
			"the benchmarks measure a Redis of their own, started for the run unless a named one is given",
			"io.github.redkit.sample.EmbeddedRedisEnvironmentPostProcessor",
			"the sample starts an embedded Redis when none answers at the configured address");

	private static final Set<String> STARTING_OWNERS = Set.of(RedisServers.class.getName(), RedisNode.class.getName(),
			SentinelRedisServer.class.getName());

	/** The servers a test may stop and start again: a restart, not a start. */
	private static final Set<String> RESTARTABLE = Set.of(RedisServer.class.getName(),
			SentinelRedisServer.class.getName());

	/** A Testcontainers container, whatever its package. */
	private static final String STARTABLE = "org.testcontainers.lifecycle.Startable";

	private static final Map<Path, JavaClasses> CLASSES = new ConcurrentHashMap<>();

	/**
	 * Whether a constructed class is a container, by name: a module's classes construct
	 * many.
	 */
	private static final Map<String, Boolean> CONTAINERS = new ConcurrentHashMap<>();

	private static final Set<String> SERVER_COMMANDS = Set.of("redis-server", "valkey-server", "redis-sentinel",
			"valkey-sentinel");

	private HandStartedServers() {
	}

	/**
	 * The rule: no class but those {@link #ON_PURPOSE} starts a server by hand.
	 * @return the rule, for {@link ArchRule#check(JavaClasses)}
	 */
	public static ArchRule rule() {
		return noClasses()
			.that(DescribedPredicate.describe("are not listed as starting servers on purpose",
					(JavaClass javaClass) -> !ON_PURPOSE.containsKey(topLevel(javaClass).getName())))
			.should(startAServer())
			.because("a test's own Redis is a static @PrivateRedis field or a test's @PrivateRedis parameter "
					+ "(docs/testing.md)")
			.allowEmptyShould(true);
	}

	/**
	 * The compiled test classes of the module whose tests run (surefire's
	 * {@code basedir}), read once a JVM for the rules held there
	 * ({@link HandStartedServersTests}, {@link TopologyIntentTests}).
	 * @return its test classes
	 * @throws IllegalStateException when a test source of the module has no compiled
	 * class there: a rule would pass checking nothing
	 */
	public static JavaClasses testClassesOfThisModule() {
		return testClassesOf(thisModule());
	}

	/**
	 * The compiled main classes of the module whose tests run, none when it has no main
	 * code of its own.
	 * @return its main classes
	 */
	public static JavaClasses mainClassesOfThisModule() {
		return classesIn(thisModule().resolve(Path.of("target", "classes")));
	}

	/**
	 * The compiled test classes of a module.
	 * @param module the module's folder
	 * @return its test classes
	 * @throws IllegalStateException when a test source of the module has no compiled
	 * class there: a rule would pass checking nothing
	 */
	public static JavaClasses testClassesOf(Path module) {
		Path sources = module.resolve(Path.of("src", "test", "java"));
		Path compiled = module.resolve(Path.of("target", "test-classes"));
		JavaClasses classes = classesIn(compiled);
		if (!Files.isDirectory(sources)) {
			// a project compiling tests of another folder (autoconfigure/tests-apart):
			// what it
			// compiled is what it runs, so the rules read that, and fail on nothing
			// compiled
			if (!classes.iterator().hasNext()) {
				throw new IllegalStateException("The rules would check nothing of " + module
						+ ": it has no test sources of its own and no compiled test class in " + compiled
						+ " (is the module's folder, surefire's basedir, right, and are its tests compiled?)");
			}
			return classes;
		}
		List<PathMatcher> elsewhere = compiledElsewhere();
		List<String> missing = topLevelNames(sources)
			.filter((name) -> elsewhere.stream()
				.noneMatch((matcher) -> matcher.matches(Path.of(name.replace('.', '/') + ".java"))))
			.filter((name) -> !classes.contain(name))
			.toList();
		if (!missing.isEmpty()) {
			throw new IllegalStateException("The rules would check nothing of " + module + ": " + compiled
					+ " lacks the test classes of " + sources + " " + missing.subList(0, Math.min(5, missing.size()))
					+ " (is the module's folder, surefire's basedir, right, and are its tests compiled?)");
		}
		return classes;
	}

	/**
	 * The source patterns ({@code **}{@code /Reactive*Tests.java}) of this module's test
	 * folder that another project compiles and checks (system property
	 * {@code redkit.test-sources.compiled-elsewhere}, comma-separated; autoconfigure's
	 * tests-apart).
	 */
	private static List<PathMatcher> compiledElsewhere() {
		String patterns = System.getProperty("redkit.test-sources.compiled-elsewhere", "");
		return Stream.of(patterns.split(","))
			.map(String::trim)
			.filter((pattern) -> !pattern.isEmpty())
			.map((pattern) -> FileSystems.getDefault().getPathMatcher("glob:" + pattern))
			.toList();
	}

	static Path thisModule() {
		return Path.of(System.getProperty("basedir", System.getProperty("user.dir"))).toAbsolutePath().normalize();
	}

	private static JavaClasses classesIn(Path folder) {
		return CLASSES.computeIfAbsent(folder, (classes) -> {
			List<Path> paths = Files.isDirectory(classes) ? List.of(classes) : List.of();
			// the rule reads only what the classes access, by name: resolving the classes
			// they name from the classpath (Spring, Lettuce, ...) took most of a module's
			// 10 to 20 s
			return ArchConfiguration.withThreadLocalScope((ArchConfiguration configuration) -> {
				configuration.setResolveMissingDependenciesFromClassPath(false);
				return new ClassFileImporter().importPaths(paths);
			});
		});
	}

	private static Stream<String> topLevelNames(Path sources) {
		if (!Files.isDirectory(sources)) {
			return Stream.empty();
		}
		try (Stream<Path> files = Files.walk(sources)) {
			return files.filter((file) -> file.getFileName().toString().endsWith(".java"))
				.map((file) -> sources.relativize(file).toString().replace(".java", "").replace('/', '.'))
				.filter((name) -> !name.endsWith("package-info") && !name.endsWith("module-info"))
				.toList()
				.stream();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Whether an access starts a server: a start of this module's API, embedded-redis or
	 * Testcontainers, or a process started where its class names a server's command (but
	 * in {@link RedisProcess}, this module's own process of a server).
	 * @param javaClass the class the access is made from
	 * @param access a call, a method or constructor reference, or a field access
	 * @return {@code true} for a start
	 */
	static boolean startsAServer(JavaClass javaClass, JavaAccess<?> access) {
		return startsAServer(access) || (startsAProcess(access) && namesAServerCommand(javaClass));
	}

	private static boolean startsAServer(JavaAccess<?> access) {
		AccessTarget target = access.getTarget();
		String owner = target.getOwner().getName();
		if (RESTARTABLE.contains(owner) && isStartOfAServer(target)) {
			return !stopsAServer(access);
		}
		if (STARTING_OWNERS.contains(owner)) {
			return target.getName().startsWith("start");
		}
		if (owner.startsWith("redis.embedded.")) {
			return isConstruction(target) || target.getName().equals("start");
		}
		return isConstruction(target) && isContainer(owner);
	}

	/** A server's own {@code start()}, no factory of one. */
	private static boolean isStartOfAServer(AccessTarget target) {
		return target.getName().equals("start") && target instanceof AccessTarget.CodeUnitAccessTarget codeUnit
				&& codeUnit.getRawParameterTypes().isEmpty();
	}

	/** Whether the method (or lambda) of an access stops a server: a restart. */
	private static boolean stopsAServer(JavaAccess<?> access) {
		return access.getOrigin()
			.getMethodCallsFromSelf()
			.stream()
			.anyMatch((call) -> RESTARTABLE.contains(call.getTargetOwner().getName())
					&& call.getTarget().getName().equals("stop"));
	}

	private static boolean isConstruction(AccessTarget target) {
		return target instanceof AccessTarget.ConstructorCallTarget
				|| target instanceof AccessTarget.ConstructorReferenceTarget;
	}

	/**
	 * Whether a class is a Testcontainers container: by its type where the class path has
	 * it, by its name (a Testcontainers module's, {@code org.testcontainers} or another
	 * such as {@code com.redis.testcontainers}) where it has not.
	 */
	private static boolean isContainer(String name) {
		return CONTAINERS.computeIfAbsent(name, HandStartedServers::isContainerType);
	}

	private static boolean isContainerType(String name) {
		if (name.contains("testcontainers.") && name.endsWith("Container")) {
			return true;
		}
		try {
			ClassLoader loader = Thread.currentThread().getContextClassLoader();
			return Class.forName(STARTABLE, false, loader).isAssignableFrom(Class.forName(name, false, loader));
		}
		catch (ClassNotFoundException | LinkageError ex) {
			return false;
		}
	}

	private static boolean startsAProcess(JavaAccess<?> access) {
		AccessTarget target = access.getTarget();
		String owner = target.getOwner().getName();
		return (owner.equals(ProcessBuilder.class.getName()) && isConstruction(target))
				|| (owner.equals(Runtime.class.getName()) && target.getName().equals("exec"));
	}

	/**
	 * Whether a class's command line is a server's: it, or a class of its module it uses
	 * (a helper that gives the binary's path), spells a server's command, alone or as the
	 * end of a path, or reads where the server binary is.
	 */
	private static boolean namesAServerCommand(JavaClass javaClass) {
		Set<JavaClass> seen = new HashSet<>();
		Deque<JavaClass> next = new ArrayDeque<>(List.of(javaClass));
		while (!next.isEmpty()) {
			JavaClass used = next.pop();
			if (seen.add(used)) {
				if (namesAServerCommandItself(used)) {
					return true;
				}
				// a class of the module imported with it (from its class file), not a
				// name this module only refers to
				used.getAccessesFromSelf()
					.stream()
					.map(JavaAccess::getTargetOwner)
					.filter((owner) -> owner.getSource().isPresent())
					.forEach(next::push);
			}
		}
		return false;
	}

	private static boolean namesAServerCommandItself(JavaClass javaClass) {
		if (javaClass.getAccessesFromSelf()
			.stream()
			.anyMatch((access) -> access.getTargetOwner().getName().equals(RedisBinary.class.getName()))) {
			return true;
		}
		return textConstants(javaClass).stream()
			.anyMatch((text) -> SERVER_COMMANDS.stream()
				.anyMatch((command) -> text.equals(command) || text.endsWith("/" + command)));
	}

	private static Set<String> textConstants(JavaClass javaClass) {
		Source source = javaClass.getSource().orElse(null);
		if (source == null) {
			return Set.of();
		}
		try (InputStream classFile = source.getUri().toURL().openStream()) {
			return ClassFileStrings.read(classFile);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot read " + source.getUri(), ex);
		}
	}

	private static ArchCondition<JavaClass> startAServer() {
		return new ArchCondition<>("start a Redis server by hand") {

			@Override
			public void check(JavaClass javaClass, ConditionEvents events) {
				for (JavaAccess<?> access : javaClass.getAccessesFromSelf()) {
					if (startsAServer(javaClass, access)) {
						events.add(SimpleConditionEvent.satisfied(access, access.getDescription()));
					}
				}
			}

		};
	}

	/** The top-level class a class is nested in, or itself. */
	static JavaClass topLevel(JavaClass javaClass) {
		JavaClass enclosing = javaClass;
		while (enclosing.getEnclosingClass().isPresent()) {
			enclosing = enclosing.getEnclosingClass().get();
		}
		return enclosing;
	}

}
