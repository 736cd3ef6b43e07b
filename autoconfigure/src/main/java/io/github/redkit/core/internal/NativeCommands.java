package io.github.redkit.core.internal;

import java.util.EnumSet;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Which native commands a runner sends in place of scripts: found once connected, each
 * off for good once a server refuses it (a server that refuses one may still take
 * another).
 */
final class NativeCommands {

	// one bit per NativeCommand, by ordinal
	private final AtomicInteger sent = new AtomicInteger();

	boolean sends(NativeCommand command) {
		return (this.sent.get() & bit(command)) != 0;
	}

	/**
	 * Sends those every node of the server takes, and only those.
	 */
	void probe(Properties info) {
		int bits = 0;
		for (NativeCommand command : NativeCommand.values()) {
			if (command.takenBy(info)) {
				bits |= bit(command);
			}
		}
		this.sent.set(bits);
	}

	/**
	 * Stops sending a command a server refused.
	 * @return whether it was sent until now (the first to see the refusal says so)
	 */
	boolean refused(NativeCommand command) {
		return (this.sent.getAndUpdate((bits) -> bits & ~bit(command)) & bit(command)) != 0;
	}

	void assumeAll() {
		this.sent.set((1 << NativeCommand.values().length) - 1);
	}

	void clear() {
		this.sent.set(0);
	}

	Set<NativeCommand> sent() {
		Set<NativeCommand> sent = EnumSet.noneOf(NativeCommand.class);
		for (NativeCommand command : NativeCommand.values()) {
			if (sends(command)) {
				sent.add(command);
			}
		}
		return sent;
	}

	private static int bit(NativeCommand command) {
		return 1 << command.ordinal();
	}

}
