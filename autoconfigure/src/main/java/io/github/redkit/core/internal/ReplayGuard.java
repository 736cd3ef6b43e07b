package io.github.redkit.core.internal;

import java.nio.ByteBuffer;

import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.protocol.Command;
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
	 * A command's output that tells whether a reply was read into it since its last write:
	 * the difference, for {@link ReplayGuard}, between a cluster's redirection and a re-send
	 * after a reconnect. Everything else goes to the command's own output.
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

}
