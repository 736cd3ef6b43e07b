package io.github.redkit.core.internal;

import java.nio.charset.StandardCharsets;

import org.jspecify.annotations.Nullable;

/**
 * For {@link NativeCommandsTests}: the native form of a script that renews a key's expiry
 * only while it holds a value: {@code KEYS[1]} the key, {@code ARGV[1]} the value it must
 * hold, {@code ARGV[2]} the new expiry in milliseconds, returning 1 when renewed and 0
 * otherwise. Sent as {@code SET key value IFEQ value PX ms}, which writes the value it
 * compared (so the key is unchanged but for its expiry) and answers {@code OK}, or nil
 * when the key held another value or none.
 */
final class RenewIfEqual implements NativeForm {

	private static final byte[] IFEQ = "IFEQ".getBytes(StandardCharsets.US_ASCII);

	private static final byte[] PX = "PX".getBytes(StandardCharsets.US_ASCII);

	@Override
	public NativeCommand command() {
		return NativeCommand.SET_IF_EQUAL;
	}

	@Override
	public byte[][] arguments(byte[][] keys, byte[][] args) {
		return new byte[][] { keys[0], args[0], IFEQ, args[0], PX, args[1] };
	}

	@Override
	public Object result(@Nullable Object reply) {
		return "OK".equals(reply) ? 1L : 0L;
	}

}
