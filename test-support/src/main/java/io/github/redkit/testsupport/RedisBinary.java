package io.github.redkit.testsupport;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

/**
 * Finds a {@code redis-server} executable: the one named by {@code REDKIT_REDIS_SERVER}
 * (a path, or {@code embedded}), else the one on the {@code PATH}, else the binary
 * shipped in the {@code com.github.codemonstur:embedded-redis} artifact (Redis 6.2).
 */
public final class RedisBinary {

	private static final String EMBEDDED_MARKER_CLASS = "redis.embedded.RedisServer";

	private RedisBinary() {
	}

	/**
	 * Returns the path of a runnable {@code redis-server}.
	 * @return the executable
	 * @throws IllegalStateException when none can be found
	 */
	public static Path locate() {
		String configured = System.getenv("REDKIT_REDIS_SERVER");
		if ("embedded".equals(configured)) {
			return embedded().orElseThrow(() -> new IllegalStateException(
					"REDKIT_REDIS_SERVER=embedded, but embedded-redis has no binary for this platform"));
		}
		if (configured != null && !configured.isBlank()) {
			return Path.of(configured);
		}
		return onPath().or(RedisBinary::embedded)
			.orElseThrow(() -> new IllegalStateException("No redis-server found: install one (e.g. "
					+ "'apt-get install -y redis-server'), set REDKIT_REDIS_SERVER, or put "
					+ "com.github.codemonstur:embedded-redis on the classpath"));
	}

	/**
	 * Returns the command that starts a server of another family or version, such as
	 * {@code redis-8}, {@code valkey-8} or {@code valkey-9}: the one named by the
	 * environment variable {@code REDKIT_<NAME>_SERVER} (e.g.
	 * {@code REDKIT_VALKEY_8_SERVER}), else
	 * {@code ~/.cache/redkit/servers/<name>/redis-server}, where {@code .ci/servers} puts
	 * Debian's packages of them. The command takes {@code redis-server}'s arguments.
	 * @param name the server's name
	 * @return the command, if this machine has one
	 */
	public static Optional<Path> named(String name) {
		String variable = "REDKIT_" + name.toUpperCase(Locale.ROOT).replace('-', '_') + "_SERVER";
		String configured = System.getenv(variable);
		Path command = (configured != null && !configured.isBlank()) ? Path.of(configured)
				: Path.of(System.getProperty("user.home"), ".cache", "redkit", "servers", name, "redis-server");
		return Files.isExecutable(command) ? Optional.of(command) : Optional.empty();
	}

	/**
	 * Returns the binary shipped in the embedded-redis artifact, extracted to
	 * {@code <java.io.tmpdir>/redkit-redis} (a directory of this user's that no one else
	 * can write to) and reused from there only when it is that binary, byte for byte.
	 * @return the executable, if the artifact is present and has one for this platform
	 */
	public static Optional<Path> embedded() {
		return embedded(Path.of(System.getProperty("java.io.tmpdir"), "redkit-redis"));
	}

	static Optional<Path> embedded(Path directory) {
		try {
			Class<?> marker = Class.forName(EMBEDDED_MARKER_CLASS, false, RedisBinary.class.getClassLoader());
			File jar = new File(marker.getProtectionDomain().getCodeSource().getLocation().toURI());
			try (JarFile file = new JarFile(jar)) {
				Optional<JarEntry> entry = file.stream()
					.filter((candidate) -> matchesPlatform(candidate.getName()))
					.findFirst();
				return (entry.isPresent()) ? Optional.of(extract(file, entry.get(), directory)) : Optional.empty();
			}
		}
		catch (ClassNotFoundException | URISyntaxException ex) {
			return Optional.empty();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static Optional<Path> onPath() {
		String path = System.getenv("PATH");
		if (path == null) {
			return Optional.empty();
		}
		for (String dir : path.split(File.pathSeparator)) {
			Path candidate = Path.of(dir, "redis-server");
			if (Files.isExecutable(candidate)) {
				return Optional.of(candidate);
			}
		}
		return Optional.empty();
	}

	private static boolean matchesPlatform(String name) {
		if (!name.startsWith("redis-server-") || name.contains("/")) {
			return false;
		}
		String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
		String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
		String wantedOs = os.contains("mac") ? "darwin" : (os.contains("win") ? "windows" : "linux");
		String wantedArch = (arch.contains("aarch64") || arch.contains("arm64")) ? "arm64"
				: (arch.contains("64") ? "amd64" : "386");
		return name.contains(wantedOs) && name.contains(wantedArch);
	}

	private static Path extract(JarFile jar, JarEntry entry, Path shared) {
		try {
			byte[] binary;
			try (InputStream in = jar.getInputStream(entry)) {
				binary = in.readAllBytes();
			}
			Path directory = privateDirectory(shared);
			Path target = directory.resolve(entry.getName());
			// a file of the same size may be another binary, or one half-written by a
			// process that died: only the very bytes are reused
			if (!isOurs(target) || !Arrays.equals(Files.readAllBytes(target), binary)) {
				Path partial = Files.createTempFile(directory, entry.getName(), ".part");
				Files.write(partial, binary);
				Files.move(partial, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
			}
			target.toFile().setExecutable(true, true);
			return target;
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot extract " + entry.getName(), ex);
		}
	}

	/**
	 * The shared directory when it is this user's, closed to everyone else (so that no
	 * one can swap the binary between its check and its start); a fresh private one when
	 * it belongs to someone else.
	 */
	private static Path privateDirectory(Path shared) throws IOException {
		if (!FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
			return Files.createDirectories(shared);
		}
		Set<PosixFilePermission> ownerOnly = PosixFilePermissions.fromString("rwx------");
		if (!Files.exists(shared, LinkOption.NOFOLLOW_LINKS)) {
			try {
				Files.createDirectories(shared.getParent());
				Files.createDirectory(shared, PosixFilePermissions.asFileAttribute(ownerOnly));
			}
			catch (FileAlreadyExistsException ex) {
				// another JVM made it first: checked below like any existing one
			}
		}
		if (Files.isDirectory(shared, LinkOption.NOFOLLOW_LINKS) && isOurs(shared)) {
			Files.setPosixFilePermissions(shared, ownerOnly);
			return shared;
		}
		Path own = Files.createTempDirectory("redkit-redis-");
		own.toFile().deleteOnExit();
		return own;
	}

	private static boolean isOurs(Path path) throws IOException {
		return Files.exists(path, LinkOption.NOFOLLOW_LINKS)
				&& Files.getOwner(path, LinkOption.NOFOLLOW_LINKS).getName().equals(System.getProperty("user.name"));
	}

}
