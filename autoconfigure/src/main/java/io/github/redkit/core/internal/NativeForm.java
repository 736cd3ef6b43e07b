package io.github.redkit.core.internal;

import org.jspecify.annotations.Nullable;

/**
 * One server command that does what a script does, for the servers that have it: sent
 * instead of the script where the server was found to take it at start-up, cheaper for
 * Redis than running a script, and never relied on (a server that refuses it gets the
 * script from then on). A form may cover only the common case of a script: for a call it
 * does not cover, or a reply it cannot decide on, the script runs as usual.
 */
public interface NativeForm {

	/**
	 * The command, which the runner sends only where the server was found to take it.
	 * @return the command
	 */
	NativeCommand command();

	/**
	 * The command's arguments for a call of the script, its key first.
	 * @param keys the script's keys
	 * @param args the script's arguments
	 * @return the command's arguments, the first of which is its key; {@code null} when
	 * this call needs the script
	 */
	byte @Nullable [][] arguments(byte[][] keys, byte[][] args);

	/**
	 * What the script would have returned, from the command's reply.
	 * @param reply the reply: a status as a {@code String}, an integer as a {@code Long},
	 * {@code null} for a nil reply
	 * @return the script's result; {@code null} when the script must decide (it runs
	 * next, on the same connection)
	 */
	@Nullable Object result(@Nullable Object reply);

}
