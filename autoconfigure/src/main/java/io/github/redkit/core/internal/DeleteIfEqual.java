package io.github.redkit.core.internal;

import org.jspecify.annotations.Nullable;

/**
 * The native form of a compare-and-delete script ({@code GET KEYS[1]}, equal to
 * {@code ARGV[1]}: {@code DEL}; 1 when deleted, else 0) on servers with {@code DELIFEQ}
 * (Valkey 9): one command, the same answer and the same effect, a replay included (the
 * key already deleted, or holding another value, stays as it is and answers 0).
 */
public final class DeleteIfEqual implements NativeForm {

	/**
	 * A compare-and-delete script with this form.
	 * @param name the script's name, a compare-and-delete as above
	 * @return the script, sent as {@code DELIFEQ} where the server has it
	 */
	public static LuaScript<Long> script(String name) {
		return LuaScript.load(name, Long.class).withNativeForm(new DeleteIfEqual());
	}

	@Override
	public NativeCommand command() {
		return NativeCommand.DELETE_IF_EQUAL;
	}

	@Override
	public byte[][] arguments(byte[][] keys, byte[][] args) {
		return new byte[][] { keys[0], args[0] };
	}

	@Override
	public @Nullable Object result(@Nullable Object reply) {
		// the script's own answer: 1 or 0
		return reply;
	}

}
