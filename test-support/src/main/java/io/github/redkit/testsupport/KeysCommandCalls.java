package io.github.redkit.testsupport;

import java.util.List;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaMethodCall;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * The rule that test code lists keys with {@link ScannedKeys} ({@code SCAN}), never with
 * {@code KEYS}: a call of a {@code keys} method of Spring Data Redis' or Lettuce's key
 * commands or templates, read from compiled classes. {@link HandStartedServersTests}
 * holds it in every module whose tests depend on this one. A {@code KEYS} sent as a raw
 * command ({@link RespClient}) is a string the rule does not read.
 */
public final class KeysCommandCalls {

	/**
	 * The types (by name: Lettuce need not be on a module's class path) whose
	 * {@code keys} methods send {@code KEYS}; their subtypes too.
	 */
	static final List<String> SENDERS = List.of("org.springframework.data.redis.core.RedisOperations",
			"org.springframework.data.redis.core.ReactiveRedisOperations",
			"org.springframework.data.redis.connection.RedisKeyCommands",
			"org.springframework.data.redis.connection.ReactiveKeyCommands",
			"org.springframework.data.redis.connection.StringRedisConnection",
			"io.lettuce.core.api.sync.RedisKeyCommands", "io.lettuce.core.api.async.RedisKeyAsyncCommands",
			"io.lettuce.core.api.reactive.RedisKeyReactiveCommands",
			"io.lettuce.core.cluster.api.sync.NodeSelectionKeyCommands",
			"io.lettuce.core.cluster.api.async.NodeSelectionKeyAsyncCommands");

	private KeysCommandCalls() {
	}

	/**
	 * No class calls a {@code keys} method of a {@link #SENDERS sender}.
	 * @return the rule
	 */
	public static ArchRule rule() {
		return noClasses().should(sendKeys())
			.because("KEYS blocks a server other tests share for its whole key space, and the project tells "
					+ "users not to send it: list keys with ScannedKeys (SCAN)")
			.allowEmptyShould(true);
	}

	private static ArchCondition<JavaClass> sendKeys() {
		return new ArchCondition<>("send KEYS") {

			@Override
			public void check(JavaClass javaClass, ConditionEvents events) {
				for (JavaMethodCall call : javaClass.getMethodCallsFromSelf()) {
					if (sendsKeys(call)) {
						events.add(SimpleConditionEvent.satisfied(call, call.getDescription()));
					}
				}
			}

		};
	}

	private static boolean sendsKeys(JavaMethodCall call) {
		if (!call.getTarget().getName().equals("keys")) {
			return false;
		}
		JavaClass owner = call.getTarget().getOwner();
		return SENDERS.stream().anyMatch(owner::isAssignableTo);
	}

}
