package io.github.redkit.core.internal;

import java.nio.ByteBuffer;

import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.CommandOutput;
import org.jspecify.annotations.Nullable;

/**
 * A command's output that tells whether a reply was read into it since its last write:
 * the difference, for {@link ReplayGuard}, between a cluster's redirection and a re-send
 * after a reconnect. Everything else goes to the command's own output.
 *
 * @param <T> the reply's type
 */
final class AnswerWatch<T> extends CommandOutput<byte[], byte[], T> {

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
