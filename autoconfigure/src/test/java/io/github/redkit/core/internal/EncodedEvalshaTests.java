package io.github.redkit.core.internal;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import io.github.redkit.core.internal.ReplayGuard.EncodedEvalsha;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.ValueOutput;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link EncodedEvalsha} (beside the {@link ReplayGuard} that sends it) writes the bytes
 * Lettuce's own {@code EVALSHA} writes, and routes by the same first key: only the
 * allocation differs.
 */
class EncodedEvalshaTests {

	private static final String SHA1 = "e0e1f9fabfc9d4800c877a703b823ac0578ff8db";

	@Test
	void writesTheBytesOfLettucesEvalsha() {
		byte[][] none = {};
		byte[][] one = { bytes("redkit:ratelimit:api:{user-1}:sw") };
		byte[][] two = { bytes("a"), new byte[12] };
		for (byte[][] keys : new byte[][][] { none, one, two }) {
			for (byte[][] args : new byte[][][] { none, { new byte[0] }, { new byte[9], new byte[10], new byte[99] },
					{ new byte[100], new byte[1000], new byte[12345] } }) {
				assertThat(encoded(keys, args)).as("%d keys, %d arguments", keys.length, args.length)
					.isEqualTo(lettuces(keys, args));
			}
		}
	}

	@Test
	void writesTenKeysOrMoreAsLettuceDoes() {
		byte[][] keys = new byte[12][];
		Arrays.fill(keys, bytes("k"));
		assertThat(encoded(keys, new byte[][] { bytes("v") })).isEqualTo(lettuces(keys, new byte[][] { bytes("v") }));
	}

	@Test
	void routesByItsFirstKeyAndCountsItsArgumentsAsLettuceDoes() {
		byte[][] keys = { bytes("{tag}:a"), bytes("{tag}:b") };
		byte[][] args = { bytes("1") };
		EncodedEvalsha<byte[]> command = new EncodedEvalsha<>(EncodedEvalsha.head(SHA1),
				new ValueOutput<>(ByteArrayCodec.INSTANCE), keys, args, true);
		CommandArgs<byte[], byte[]> lettuces = lettucesArgs(keys, args);
		assertThat(command.getArgs().getFirstEncodedKey()).isEqualTo(lettuces.getFirstEncodedKey());
		assertThat(command.getArgs().count()).isEqualTo(lettuces.count());
		assertThat(command.getType()).isEqualTo(CommandType.EVALSHA);
	}

	@Test
	void onAConnectionThatRoutesNothingByKeyCommandsOfOneShapeShareTheirArguments() {
		byte[][] args = { bytes("1"), bytes("2") };
		EncodedEvalsha<byte[]> first = new EncodedEvalsha<>(EncodedEvalsha.head(SHA1),
				new ValueOutput<>(ByteArrayCodec.INSTANCE), new byte[][] { bytes("a") }, args, false);
		EncodedEvalsha<byte[]> second = new EncodedEvalsha<>(EncodedEvalsha.head(SHA1),
				new ValueOutput<>(ByteArrayCodec.INSTANCE), new byte[][] { bytes("b") }, args, false);
		EncodedEvalsha<byte[]> routed = new EncodedEvalsha<>(EncodedEvalsha.head(SHA1),
				new ValueOutput<>(ByteArrayCodec.INSTANCE), new byte[][] { bytes("b") }, args, true);
		assertThat(second.getArgs()).isSameAs(first.getArgs());
		assertThat(second.getArgs().count()).isEqualTo(lettucesArgs(new byte[][] { bytes("b") }, args).count())
			.isEqualTo(routed.getArgs().count());
		assertThat(second.getArgs().toCommandString()).isEqualTo(routed.getArgs().toCommandString())
			.doesNotContain("b");
		assertThat(written(second)).isEqualTo(written(routed));
	}

	private static byte[] encoded(byte[][] keys, byte[][] args) {
		return written(new EncodedEvalsha<>(EncodedEvalsha.head(SHA1), new ValueOutput<>(ByteArrayCodec.INSTANCE), keys,
				args, false));
	}

	private static byte[] lettuces(byte[][] keys, byte[][] args) {
		return written(new Command<>(CommandType.EVALSHA, new ValueOutput<>(ByteArrayCodec.INSTANCE),
				lettucesArgs(keys, args)));
	}

	private static CommandArgs<byte[], byte[]> lettucesArgs(byte[][] keys, byte[][] args) {
		return new CommandArgs<>(ByteArrayCodec.INSTANCE).add(SHA1).add(keys.length).addKeys(keys).addValues(args);
	}

	private static byte[] written(Command<byte[], byte[], byte[]> command) {
		ByteBuf buf = Unpooled.buffer();
		try {
			command.encode(buf);
			byte[] bytes = new byte[buf.readableBytes()];
			buf.readBytes(bytes);
			return bytes;
		}
		finally {
			buf.release();
		}
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

}
