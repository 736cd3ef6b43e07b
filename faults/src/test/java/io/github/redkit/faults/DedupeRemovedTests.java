package io.github.redkit.faults;

import java.util.Arrays;
import java.util.Objects;

import io.github.redkit.core.internal.LuaScript;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The builds without a script's dedupe run live only in the soak: these tests make each
 * of them in every build, so that a change of {@link LuaScript} or of a script does not
 * leave the soak's broken builds unmade (the stream take's was, unseen, once
 * {@code LuaScript} gained a flag).
 */
class DedupeRemovedTests {

	@Test
	void everyQueueBuildWithoutADedupeIsMade() {
		Arrays.stream(QueueScenario.Breakage.values())
			.filter((breakage) -> breakage.script() != null)
			.forEach((breakage) -> assertMade(Objects.requireNonNull(breakage.script()), breakage.dedupe(),
					breakage.replacement()));
	}

	@Test
	void theLockAndStepBuildsWithoutADedupeAreMade() {
		assertMade(BrokenLocks.SCRIPT, BrokenLocks.DEDUPE, "false");
		assertMade(BrokenIdempotentSteps.SCRIPT, BrokenIdempotentSteps.DEDUPE, "false");
	}

	@Test
	void aScriptWithoutItsDedupeKeepsHowTheRunnerSendsIt() {
		LuaScript<Long> original = LuaScript.load(BrokenLocks.SCRIPT, Long.class).givingBack().givenUpWithItsCaller();
		LuaScript<?> edited = DedupeRemoved.edit(original, BrokenLocks.DEDUPE, "false");
		assertThat(edited.givesBack()).isTrue();
		assertThat(edited.givenUpWithCaller()).isTrue();
		assertThat(edited.dropsReplays()).isFalse();
		assertThat(edited.name()).isEqualTo(original.name());
		assertThat(edited.redisScript().getResultType()).isEqualTo(Long.class);
	}

	private static void assertMade(String script, String dedupe, String replacement) {
		LuaScript<Long> original = LuaScript.load(script, Long.class);
		LuaScript<?> edited = DedupeRemoved.edit(original, dedupe, replacement);
		assertThat(edited.redisScript().getScriptAsString()).as(script)
			.doesNotContain(dedupe)
			.isEqualTo(original.redisScript().getScriptAsString().replace(dedupe, replacement));
		assertThat(edited.redisScript().getSha1()).as(script).isNotEqualTo(original.redisScript().getSha1());
	}

}
