package io.github.redkit.testsupport;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The embedded binary is extracted once and reused only when it is that binary, byte for
 * byte, in a directory of this user's that no one else can write to.
 */
class RedisBinaryTests {

	@TempDir
	Path temp;

	@Test
	void aFileOfTheSameSizeIsNotTakenForTheBinary() throws Exception {
		Path directory = this.temp.resolve("redkit-redis");
		Path extracted = RedisBinary.embedded(directory).orElseThrow();
		byte[] binary = Files.readAllBytes(extracted);
		// another binary, or a half-written one, of exactly the same size
		byte[] planted = new byte[binary.length];
		Files.write(extracted, planted);
		Path again = RedisBinary.embedded(directory).orElseThrow();
		assertThat(Files.readAllBytes(again)).isEqualTo(binary);
		try (RedisServer redis = ProcessRedisServer.standalone(again)) {
			assertThat(redis.version()).startsWith("6.2");
		}
	}

	@Test
	void aDirectoryOthersCouldWriteToIsClosedToThemFirst() throws Exception {
		Path directory = Files.createDirectory(this.temp.resolve("shared"));
		Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("rwxrwxrwx"));
		Path extracted = RedisBinary.embedded(directory).orElseThrow();
		assertThat(extracted.getParent()).isEqualTo(directory);
		assertThat(Files.getPosixFilePermissions(directory)).isEqualTo(PosixFilePermissions.fromString("rwx------"));
	}

}
