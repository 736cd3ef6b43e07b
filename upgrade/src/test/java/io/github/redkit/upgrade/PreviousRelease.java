package io.github.redkit.upgrade;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The previous release, from the local Maven repository: built once from its git tag when
 * it is not there (the released version only, never a snapshot), then its class path
 * resolved from that repository, offline.
 */
final class PreviousRelease {

	private static final Log logger = LogFactory.getLog(PreviousRelease.class);

	private PreviousRelease() {
	}

	/**
	 * The class path of the previous release's library and its dependencies.
	 * @param version the release, tagged {@code v<version>}
	 * @param root this checkout (its git tags and Maven wrapper)
	 * @param repository the local Maven repository
	 * @param work a directory of the test's own
	 * @return the class path entries
	 */
	static List<String> classPath(String version, Path root, Path repository, Path work) throws Exception {
		Path redkit = repository.resolve("io/github/redkit");
		Path starter = redkit
			.resolve("redkit-spring-boot-starter/" + version + "/redkit-spring-boot-starter-" + version + ".pom");
		Path library = redkit.resolve("redkit-spring-boot/" + version + "/redkit-spring-boot-" + version + ".jar");
		if (!Files.exists(starter) || !Files.exists(library)) {
			build(version, root, repository, work.resolve("v" + version));
		}
		// resolved once per local repository, beside the release it describes (a fresh
		// Maven JVM costs more CPU than the whole fleet's start-ups): kept while every
		// entry is there, under a name of the POM's (a POM naming more resolves again)
		Path cached = library.resolveSibling(
				"redkit-spring-boot-" + version + ".upgrade-classpath-" + Integer.toHexString(pom(version).hashCode()));
		if (Files.exists(cached)) {
			List<String> entries = Arrays.asList(Files.readString(cached).trim().split(File.pathSeparator));
			if (entries.stream().allMatch((entry) -> Files.exists(Path.of(entry)))) {
				return entries;
			}
		}
		Path resolve = Files.createDirectories(work.resolve("resolve-" + version));
		Path output = resolve.resolve("classpath.txt");
		Files.writeString(resolve.resolve("pom.xml"), pom(version));
		run(resolve, Duration.ofMinutes(2), root.resolve("mvnw").toString(), "-B", "-q", "-o",
				"-Dmaven.repo.local=" + repository,
				"org.apache.maven.plugins:maven-dependency-plugin:3.9.0:build-classpath", "-Dmdep.includeScope=runtime",
				"-Dmdep.outputFile=" + output);
		List<String> entries = Arrays.asList(Files.readString(output).trim().split(File.pathSeparator));
		if (entries.stream().noneMatch((entry) -> entry.endsWith("redkit-spring-boot-" + version + ".jar"))) {
			throw new IllegalStateException("the class path of " + version + " lacks its library: " + entries);
		}
		Files.writeString(cached, String.join(File.pathSeparator, entries));
		return entries;
	}

	/**
	 * Builds the tagged release's library, starter and what they need into the local
	 * repository, without their tests.
	 */
	private static void build(String version, Path root, Path repository, Path sources) throws Exception {
		long started = System.nanoTime();
		logger.info("Building Redkit " + version + " from the tag v" + version + " into the local repository");
		Files.createDirectories(sources);
		// the tag, or the release's commit in a clone given no tags (CI's may be one)
		String commit = System.getProperty("upgrade.previous-commit", "v" + version);
		run(root, Duration.ofMinutes(1), "sh", "-c", "git archive --format=tar \"$(git rev-parse -q --verify 'v"
				+ version + "^{commit}' || echo '" + commit + "')\" | tar -x -C '" + sources + "'");
		List<String> install = new ArrayList<>(List.of(sources.resolve("mvnw").toString(), "-B", "-q", "-T", "1C",
				"install", "-pl", "starter", "-am", "-Dmaven.repo.local=" + repository));
		// what a release's jars need and nothing else: no tests compiled, no checks, no
		// sources or Javadoc
		install.addAll(
				List.of("-Dmaven.test.skip=true", "-Dcheckstyle.skip=true", "-Dspring-javaformat.validate.skip=true",
						"-Dmaven.javadoc.skip=true", "-Dmaven.source.skip=true", "-Denforcer.skip=true"));
		List<String> offline = new ArrayList<>(install);
		offline.add("-o");
		try {
			// offline first: this build's plugins and libraries are those of the release
			run(sources, Duration.ofMinutes(20), offline.toArray(String[]::new));
		}
		catch (IllegalStateException ex) {
			logger.info("Offline, the build of " + version + " failed; again with the remote repositories", ex);
			run(sources, Duration.ofMinutes(20), install.toArray(String[]::new));
		}
		logger.info(String.format("Built Redkit %s in %.0f s", version, (System.nanoTime() - started) / 1e9));
	}

	private static String pom(String version) {
		return """
				<project xmlns="http://maven.apache.org/POM/4.0.0">
					<modelVersion>4.0.0</modelVersion>
					<parent>
						<groupId>io.github.redkit</groupId>
						<artifactId>redkit-parent</artifactId>
						<version>%s</version>
					</parent>
					<artifactId>redkit-upgrade-previous</artifactId>
					<dependencies>
						<dependency>
							<groupId>io.github.redkit</groupId>
							<artifactId>redkit-spring-boot-starter</artifactId>
						</dependency>
						<dependency>
							<groupId>org.springframework.boot</groupId>
							<artifactId>spring-boot-starter-jackson</artifactId>
						</dependency>
						<dependency>
							<groupId>org.springframework.boot</groupId>
							<artifactId>spring-boot-actuator-autoconfigure</artifactId>
						</dependency>
						<dependency>
							<groupId>org.springframework.boot</groupId>
							<artifactId>spring-boot-starter-cache</artifactId>
						</dependency>
					</dependencies>
				</project>
				""".formatted(version);
	}

	private static void run(Path directory, Duration timeout, String... command) throws Exception {
		Path log = Files.createTempFile("redkit-upgrade", ".log");
		Process process = new ProcessBuilder(command).directory(directory.toFile())
			.redirectErrorStream(true)
			.redirectOutput(log.toFile())
			.start();
		if (!process.waitFor(timeout.toSeconds(), TimeUnit.SECONDS)) {
			process.destroyForcibly();
			throw new IllegalStateException(String.join(" ", command) + " took longer than " + timeout);
		}
		String output = Files.readString(log, StandardCharsets.UTF_8);
		Files.delete(log);
		if (process.exitValue() != 0) {
			throw new IllegalStateException(String.join(" ", command) + " failed in " + directory + ":\n" + output);
		}
	}

}
