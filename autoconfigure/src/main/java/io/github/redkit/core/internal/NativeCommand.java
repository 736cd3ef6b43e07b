package io.github.redkit.core.internal;

import java.util.Properties;

/**
 * A server command some servers have that can stand for a script ({@link NativeForm}), or
 * that a script sends where present: its name, how it answers, and which servers take it,
 * read from their {@code INFO server} once connected.
 */
public enum NativeCommand {

	/**
	 * {@code SET key value IFEQ expected}: Valkey 8.1 and Redis 8.4 onwards; answers
	 * {@code OK}, or nil when the key held another value or none.
	 */
	SET_IF_EQUAL("SET", false),

	/**
	 * {@code DELIFEQ key value}: Valkey 9.0 onwards; answers 1 when it deleted the key, 0
	 * when the key held another value or none.
	 */
	DELETE_IF_EQUAL("DELIFEQ", true),

	/**
	 * {@code XACKDEL key group IDS n id...}: Redis 8.2 onwards; acknowledges and deletes
	 * stream entries in one command. Sent from inside the stream queue's scripts, never
	 * in place of one.
	 */
	ACK_DELETE("XACKDEL", false);

	private final String command;

	private final boolean integerReply;

	NativeCommand(String command, boolean integerReply) {
		this.command = command;
		this.integerReply = integerReply;
	}

	/**
	 * The command's name as sent.
	 * @return the name, such as {@code SET}
	 */
	public String command() {
		return this.command;
	}

	/**
	 * Whether the command answers an integer (else a status or nil).
	 * @return {@code true} for an integer reply
	 */
	boolean integerReply() {
		return this.integerReply;
	}

	/**
	 * Whether every node of a server takes this command.
	 * @param info the {@code INFO server} fields
	 * @return whether every node named takes it; {@code false} when none is named
	 */
	boolean takenBy(Properties info) {
		return switch (this) {
			case SET_IF_EQUAL -> ServerVersions.setIfEqual(info);
			case DELETE_IF_EQUAL -> ServerVersions.deleteIfEqual(info);
			case ACK_DELETE -> ServerVersions.ackDelete(info);
		};
	}

}
