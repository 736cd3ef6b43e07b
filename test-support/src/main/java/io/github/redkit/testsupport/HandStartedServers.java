package io.github.redkit.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

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
 * test classes: no test code starts one by hand (a static {@code @PrivateRedis} field or
 * a test's {@code @PrivateRedis} parameter has this module do it and stop it). A call, a
 * method reference or a constructor call of the starting API breaks it however the source
 * spells it (a static import, a reference, a call over several lines): the {@code start*}
 * methods of {@link RedisServers}, {@link RedisNode} and {@link SentinelRedisServer},
 * embedded-redis' servers and Testcontainers' containers, and a process (a
 * {@link ProcessBuilder}, {@link Runtime#exec(String[])}) started by a class that names a
 * server's command ({@code redis-server}, {@code valkey-server}, their Sentinels) or
 * takes it from {@link RedisBinary}. {@link HandStartedServersTests} holds it in every
 * module whose tests depend on this one.
 */
public final class HandStartedServers {

	/**
	 * The test classes (top-level, by name) that start servers themselves on purpose, and
	 * why; their nested classes and lambdas are theirs.
	 */
	public static final Map<String, String> ON_PURPOSE = Map.of("io.github.redkit.sample.EmbeddedRedisTests",
			"the configured Redis comes up on a given port mid-test, while the application waits for it",
			"io.github.redkit.faults.FaultRun",
			"the fault harness starts the nodes of each run (a seed, a scenario) as the run asks for them");

	private static final Set<String> STARTING_OWNERS = Set.of(RedisServers.class.getName(), RedisNode.class.getName(),
			SentinelRedisServer.class.getName());

	private static final Map<Path, JavaClasses> TEST_CLASSES = new ConcurrentHashMap<>();

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
	 * @return its test classes, none when they are not compiled
	 */
	public static JavaClasses testClassesOfThisModule() {
		Path module = Path.of(System.getProperty("basedir", System.getProperty("user.dir")));
		return TEST_CLASSES.computeIfAbsent(module.toAbsolutePath().normalize(), HandStartedServers::testClassesOf);
	}

	/**
	 * The compiled test classes of a module.
	 * @param module the module's folder
	 * @return its test classes, none when they are not compiled
	 */
	public static JavaClasses testClassesOf(Path module) {
		Path classes = module.resolve(Path.of("target", "test-classes"));
		List<Path> paths = Files.isDirectory(classes) ? List.of(classes) : List.of();
		// the rule reads only what the classes access, by name: resolving the classes
		// they
		// name from the classpath (Spring, Lettuce, ...) took most of a module's 10 to 20
		// s
		return ArchConfiguration.withThreadLocalScope((ArchConfiguration configuration) -> {
			configuration.setResolveMissingDependenciesFromClassPath(false);
			return new ClassFileImporter().importPaths(paths);
		});
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
		if (STARTING_OWNERS.contains(owner)) {
			return target.getName().startsWith("start");
		}
		if (owner.startsWith("redis.embedded.")) {
			return target instanceof AccessTarget.ConstructorCallTarget
					|| target instanceof AccessTarget.ConstructorReferenceTarget || target.getName().equals("start");
		}
		return owner.startsWith("org.testcontainers.") && owner.endsWith("Container")
				&& (target instanceof AccessTarget.ConstructorCallTarget
						|| target instanceof AccessTarget.ConstructorReferenceTarget);
	}

	private static boolean startsAProcess(JavaAccess<?> access) {
		AccessTarget target = access.getTarget();
		String owner = target.getOwner().getName();
		return (owner.equals(ProcessBuilder.class.getName()) && (target instanceof AccessTarget.ConstructorCallTarget
				|| target instanceof AccessTarget.ConstructorReferenceTarget))
				|| (owner.equals(Runtime.class.getName()) && target.getName().equals("exec"));
	}

	/**
	 * Whether a class's command line is a server's: it spells a server's command, alone
	 * or as the end of a path, or reads where the server binary is.
	 */
	private static boolean namesAServerCommand(JavaClass javaClass) {
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

	private static JavaClass topLevel(JavaClass javaClass) {
		JavaClass enclosing = javaClass;
		while (enclosing.getEnclosingClass().isPresent()) {
			enclosing = enclosing.getEnclosingClass().get();
		}
		return enclosing;
	}

}
