package io.github.redkit.core.internal;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.protocol.CommandWrapper;
import io.lettuce.core.protocol.RedisCommand;
import io.netty.buffer.ByteBuf;
import org.jspecify.annotations.Nullable;

/**
 * A script call Lettuce must not deliver twice. Lettuce sends a command again after a
 * reconnect when it was written and its reply never read, though Redis may have applied
 * it (its own {@code ClientOptions.replayFilter} never sees such a command, in 7.5: it
 * filters only commands written while disconnected, and leaves them uncompleted). So the
 * call watches its own writes: written again with no reply read since the last write, it
 * writes a {@code PING} instead, and completes as {@linkplain #dropped() dropped} when
 * the {@code PONG} arrives. A write after a reply (a cluster's {@code MOVED} or
 * {@code ASK}, which Redis did not apply) sends the script again.
 * <p>
 * Nested here, the other pieces of a guarded call: the {@code EVALSHA} written in place
 * ({@link EncodedEvalsha}), sent only inside a guard, and the output through which the
 * guard sees a reply ({@link AnswerWatch}).
 *
 * @param <T> the reply's type
 */
final class ReplayGuard<T> extends CommandWrapper<byte[], byte[], T> {

	private final AnswerWatch<T> watch;

	// the output of the PING sent in the script's place: made only then, on the event
	// loop, before dropped is set
	private @Nullable CommandOutput<byte[], byte[], T> droppedOutput;

	private volatile boolean written;

	private volatile boolean dropped;

	ReplayGuard(RedisCommand<byte[], byte[], T> command) {
		super(command);
		this.watch = new AnswerWatch<>(command.getOutput());
	}

	@Override
	public void encode(ByteBuf buf) {
		// on Lettuce's event loop, once per write of this command
		if (this.written && !this.watch.answered()) {
			this.droppedOutput = new CommandOutput<>(ByteArrayCodec.INSTANCE, null) {

				@Override
				public void set(ByteBuffer bytes) {
					// the PONG of the PING sent in the script's place
				}

			};
			this.dropped = true;
			new Command<byte[], byte[], String>(CommandType.PING, null).encode(buf);
			return;
		}
		this.written = true;
		this.watch.expectAnswer();
		super.encode(buf);
	}

	@Override
	public CommandOutput<byte[], byte[], T> getOutput() {
		CommandOutput<byte[], byte[], T> dropped = this.dropped ? this.droppedOutput : null;
		return (dropped != null) ? dropped : this.watch;
	}

	/**
	 * Whether the call was handed to the connection to be written at least once: from
	 * then on Redis may have applied it, and it must not be sent on another connection.
	 * @return {@code false} when Redis cannot have received it
	 */
	boolean written() {
		return this.written;
	}

	/**
	 * Whether the call was written again after its connection dropped, and not sent.
	 * @return {@code true} when Redis may or may not have applied it once
	 */
	boolean dropped() {
		return this.dropped;
	}

	/**
	 * A command's output that tells whether a reply was read into it since its last
	 * write: the difference, for {@link ReplayGuard}, between a cluster's redirection and
	 * a re-send after a reconnect. Everything else goes to the command's own output.
	 *
	 * @param <T> the reply's type
	 */
	static final class AnswerWatch<T> extends CommandOutput<byte[], byte[], T> {

		private final CommandOutput<byte[], byte[], T> output;

		private volatile boolean answered;

		AnswerWatch(CommandOutput<byte[], byte[], T> output) {
			super(ByteArrayCodec.INSTANCE, null);
			this.output = output;
		}

		void expectAnswer() {
			this.answered = false;
		}

		boolean answered() {
			return this.answered;
		}

		@Override
		public T get() {
			return this.output.get();
		}

		@Override
		public void set(ByteBuffer bytes) {
			this.answered = true;
			this.output.set(bytes);
		}

		@Override
		public void setSingle(ByteBuffer bytes) {
			this.answered = true;
			this.output.setSingle(bytes);
		}

		@Override
		public void setBigNumber(ByteBuffer bytes) {
			this.answered = true;
			this.output.setBigNumber(bytes);
		}

		@Override
		public void set(long integer) {
			this.answered = true;
			this.output.set(integer);
		}

		@Override
		public void set(double number) {
			this.answered = true;
			this.output.set(number);
		}

		@Override
		public void set(boolean value) {
			this.answered = true;
			this.output.set(value);
		}

		@Override
		public void setError(ByteBuffer error) {
			this.answered = true;
			this.output.setError(error);
		}

		@Override
		public void setError(@Nullable String error) {
			// a cluster clears a redirection's error before it sends the command again
			if (error != null) {
				this.answered = true;
			}
			this.output.setError(error);
		}

		@Override
		public boolean hasError() {
			return this.output.hasError();
		}

		@Override
		public @Nullable String getError() {
			return this.output.getError();
		}

		@Override
		public void complete(int depth) {
			this.output.complete(depth);
		}

		@Override
		public void multi(int count) {
			this.answered = true;
			this.output.multi(count);
		}

		@Override
		public void multiArray(int count) {
			this.answered = true;
			this.output.multiArray(count);
		}

		@Override
		public void multiPush(int count) {
			this.answered = true;
			this.output.multiPush(count);
		}

		@Override
		public void multiSet(int count) {
			this.answered = true;
			this.output.multiSet(count);
		}

		@Override
		public void multiMap(int count) {
			this.answered = true;
			this.output.multiMap(count);
		}

		@Override
		public String toString() {
			return this.output.toString();
		}

	}

	/**
	 * An {@code EVALSHA} that writes itself into Lettuce's buffer: the same bytes as
	 * Lettuce's own encoding (RESP: the count, the command, the SHA-1, the number of
	 * keys, then each key and argument as a bulk string), without the argument objects
	 * Lettuce makes for each, their iterator, and the string it makes of every length and
	 * count. A script is sent with every decision, so these were a large part of what one
	 * allocates; the head of each script's command is encoded once
	 * ({@link #head(String)}).
	 *
	 * @param <T> the reply's type
	 */
	static final class EncodedEvalsha<T> extends Command<byte[], byte[], T> {

		private static final byte[] CRLF = { '\r', '\n' };

		private final byte[] head;

		private final byte[][] keys;

		private final byte[][] args;

		/**
		 * Creates the command.
		 * @param head the script's head ({@link #head(String)})
		 * @param output reads the reply
		 * @param keys the keys
		 * @param args the arguments
		 * @param routed whether the connection routes the command by its first key (a
		 * cluster's): else the command's arguments, which Lettuce then reads only for
		 * their count and its logs, are shared by every command of the same shape, so
		 * that none is made per call
		 */
		EncodedEvalsha(byte[] head, CommandOutput<byte[], byte[], T> output, byte[][] keys, byte[][] args,
				boolean routed) {
			super(CommandType.EVALSHA, output,
					routed ? new Arguments(keys.length, args.length, (keys.length > 0) ? keys[0] : null)
							: Arguments.shaped(keys.length, args.length));
			this.head = head;
			this.keys = keys;
			this.args = args;
		}

		/**
		 * What every {@code EVALSHA} of a script starts with after its count: the command
		 * and the SHA-1, as bulk strings.
		 * @param sha1 the script's SHA-1
		 * @return the encoded head
		 */
		static byte[] head(String sha1) {
			return ("$7\r\nEVALSHA\r\n$" + sha1.length() + "\r\n" + sha1 + "\r\n").getBytes(StandardCharsets.US_ASCII);
		}

		@Override
		public void encode(ByteBuf buf) {
			buf.writeByte('*');
			writeNumber(buf, 3 + this.keys.length + this.args.length);
			buf.writeBytes(CRLF);
			buf.writeBytes(this.head);
			// the number of keys, a bulk string as Lettuce writes an integer argument
			buf.writeByte('$');
			writeNumber(buf, digits(this.keys.length));
			buf.writeBytes(CRLF);
			writeNumber(buf, this.keys.length);
			buf.writeBytes(CRLF);
			writeBulk(buf, this.keys);
			writeBulk(buf, this.args);
		}

		private static void writeBulk(ByteBuf buf, byte[][] values) {
			for (byte[] value : values) {
				buf.writeByte('$');
				writeNumber(buf, value.length);
				buf.writeBytes(CRLF);
				buf.writeBytes(value);
				buf.writeBytes(CRLF);
			}
		}

		/** Writes a number that is not negative in decimal digits, making no string. */
		private static void writeNumber(ByteBuf buf, int value) {
			int divisor = 1;
			while (value / divisor >= 10) {
				divisor *= 10;
			}
			for (; divisor > 0; divisor /= 10) {
				buf.writeByte('0' + (value / divisor) % 10);
			}
		}

		private static int digits(int value) {
			int digits = 1;
			for (int rest = value / 10; rest > 0; rest /= 10) {
				digits++;
			}
			return digits;
		}

		/**
		 * The command's arguments as Lettuce reads them without encoding them: the first
		 * key, by which a cluster connection routes the command, their count, and a
		 * description for its logs (the counts only, never a key or a value). Each makes
		 * a list of Lettuce's that stays empty, so a connection that routes nothing by
		 * key gets one of the instances kept per shape.
		 */
		private static final class Arguments extends CommandArgs<byte[], byte[]> {

			private static final int KEPT_KEYS = 4;

			private static final int KEPT_ARGS = 32;

			// filled as shapes are met; each instance's fields are final, so one
			// published
			// through a race is seen whole, and two threads making the same shape both
			// make a valid one
			private static final Arguments[] KEPT = new Arguments[(KEPT_KEYS + 1) * (KEPT_ARGS + 1)];

			private final int keyCount;

			private final int argCount;

			private final byte @Nullable [] firstKey;

			Arguments(int keyCount, int argCount, byte @Nullable [] firstKey) {
				super(ByteArrayCodec.INSTANCE);
				this.keyCount = keyCount;
				this.argCount = argCount;
				this.firstKey = firstKey;
			}

			static Arguments shaped(int keyCount, int argCount) {
				if (keyCount > KEPT_KEYS || argCount > KEPT_ARGS) {
					return new Arguments(keyCount, argCount, null);
				}
				int slot = keyCount * (KEPT_ARGS + 1) + argCount;
				Arguments kept = KEPT[slot];
				if (kept == null) {
					kept = new Arguments(keyCount, argCount, null);
					KEPT[slot] = kept;
				}
				return kept;
			}

			@Override
			public int count() {
				return 2 + this.keyCount + this.argCount;
			}

			@Override
			public @Nullable ByteBuffer getFirstEncodedKey() {
				return (this.firstKey != null) ? ByteBuffer.wrap(this.firstKey) : null;
			}

			@Override
			public void encode(ByteBuf buf) {
				throw new UnsupportedOperationException("EncodedEvalsha encodes its arguments itself");
			}

			@Override
			public String toCommandString() {
				return "<sha1> " + this.keyCount + " key<" + this.keyCount + " keys> value<" + this.argCount
						+ " arguments>";
			}

			@Override
			public String toString() {
				return getClass().getSimpleName() + " [" + toCommandString() + "]";
			}

		}

	}

}
