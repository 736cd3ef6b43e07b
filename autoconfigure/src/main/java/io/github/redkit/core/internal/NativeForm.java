package io.github.redkit.core.internal;

import org.jspecify.annotations.Nullable;

/**
 * One server command that does what a script does, for the servers that have it: sent
 * instead of the script where the server was found to take it at start-up, cheaper for
 * Redis than running a script, and never relied on (a server that refuses it gets the
 * script from then on).
 */
public interface NativeForm {

	/**
	 * The command's name, such as {@code SET}.
	 * @return the name
	 */
	String command();

	/**
	 * The command's arguments for a call of the script, its key first.
	 * @param keys the script's keys
	 * @param args the script's arguments
	 * @return the command's arguments, the first of which is its key
	 */
	byte[][] arguments(byte[][] keys, byte[][] args);

	/**
	 * What the script would have returned, from the command's status reply.
	 * @param reply the status reply, {@code null} for a nil reply
	 * @return the script's result
	 */
	Object result(@Nullable String reply);

}
