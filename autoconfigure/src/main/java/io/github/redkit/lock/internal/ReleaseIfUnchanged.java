package io.github.redkit.lock.internal;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

import io.github.redkit.core.internal.NativeCommand;
import io.github.redkit.core.internal.NativeForm;
import org.jspecify.annotations.Nullable;

/**
 * The native form of {@code lock_release.lua} on servers with {@code SET IFEQ} (Valkey
 * 8.1, Redis 8.4): when the lock's record is, to the byte, the one its holder last wrote
 * (its fencing token, the lease end the holder computed as the script did, nobody
 * waiting), one {@code SET freed IFEQ held PX outlives} frees it. Any other record
 * (someone waits and must be woken, the lease was extended elsewhere, the lock is lost or
 * gone) makes the command answer nil, and the script decides.
 */
final class ReleaseIfUnchanged implements NativeForm {

	private static final byte[] IFEQ = "IFEQ".getBytes(StandardCharsets.US_ASCII);

	private static final byte[] PX = "PX".getBytes(StandardCharsets.US_ASCII);

	private static final byte[] NO_HOLDER = new byte[0];

	@Override
	public NativeCommand command() {
		return NativeCommand.SET_IF_EQUAL;
	}

	/**
	 * The script's arguments: the holder's token, its fencing token, the record's TTL
	 * once free, {@code force} or nothing, and the lease end the holder last saw
	 * ({@link LockScripts#leaseEnd}), or nothing when it does not know it.
	 */
	@Override
	public byte @Nullable [][] arguments(byte[][] keys, byte[][] args) {
		if (args.length < 5 || args[3].length > 0 || args[4].length == 0) {
			return null;
		}
		double fence = Long.parseLong(new String(args[1], StandardCharsets.US_ASCII));
		double leaseEnd = Double.parseDouble(new String(args[4], StandardCharsets.US_ASCII));
		return new byte[][] { keys[0], record(fence, 0, NO_HOLDER), IFEQ, record(fence, leaseEnd, args[0]), PX,
				args[2] };
	}

	@Override
	public @Nullable Object result(@Nullable Object reply) {
		return "OK".equals(reply) ? 1L : null;
	}

	/**
	 * A record as the lock scripts write it with nobody waiting:
	 * {@code struct.pack('<BddBs', 1, fence, leaseEnd, 0, holder)} (see
	 * {@code lock_record.lua}).
	 */
	static byte[] record(double fence, double leaseEnd, byte[] holder) {
		return ByteBuffer.allocate(1 + 8 + 8 + 1 + holder.length + 1)
			.order(ByteOrder.LITTLE_ENDIAN)
			.put((byte) 1)
			.putDouble(fence)
			.putDouble(leaseEnd)
			.put((byte) 0)
			.put(holder)
			.put((byte) 0)
			.array();
	}

}
