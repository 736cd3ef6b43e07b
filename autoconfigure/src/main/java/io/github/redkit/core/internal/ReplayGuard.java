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

}
