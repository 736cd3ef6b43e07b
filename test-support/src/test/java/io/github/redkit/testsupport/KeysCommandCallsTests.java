package io.github.redkit.testsupport;

import java.util.Set;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.EvaluationResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.ReactiveRedisConnection;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link KeysCommandCalls#rule()} catches a {@code KEYS} sent through a template or a
 * connection, and lets {@link ScannedKeys} and other {@code keys} methods be.
 */
class KeysCommandCallsTests {

	@ParameterizedTest
	@ValueSource(classes = { ThroughATemplate.class, ThroughAConnection.class, ThroughAReactiveTemplate.class,
			ThroughAReactiveConnection.class })
	void aKeysCallIsCaught(Class<?> fixture) {
		assertThat(violations(fixture).getFailureReport().getDetails()).singleElement()
			.asString()
			.contains(fixture.getName())
			.contains("keys");
	}

	@Test
	void listingKeysWithScanAndAMapsKeysAreNoKeysCall() {
		assertThat(violations(ThroughScannedKeys.class).hasViolation()).isFalse();
	}

	private static EvaluationResult violations(Class<?> fixture) {
		return KeysCommandCalls.rule().evaluate(new ClassFileImporter().importClasses(fixture));
	}

	static final class ThroughATemplate {

		Object keys(StringRedisTemplate template) {
			return template.keys("q-*");
		}

	}

	static final class ThroughAConnection {

		Object keys(RedisConnection connection) {
			return connection.keyCommands().keys("q-*".getBytes());
		}

	}

	static final class ThroughAReactiveTemplate {

		Object keys(ReactiveStringRedisTemplate template) {
			return template.keys("q-*");
		}

	}

	static final class ThroughAReactiveConnection {

		Object keys(ReactiveRedisConnection connection) {
			return connection.keyCommands().keys(java.nio.ByteBuffer.wrap("q-*".getBytes()));
		}

	}

	static final class ThroughScannedKeys {

		Object keys(StringRedisTemplate template, java.util.Map<String, String> map) {
			Set<String> found = ScannedKeys.matching(template, "q-*");
			return found.size() + map.keySet().size();
		}

	}

}
