package io.github.redkit.faults;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The resource a lock protects, built as the docs tell users to build it: it refuses a
 * write whose fencing token is lower than the highest it has accepted for that key, and
 * keeps every accepted write in the order it accepted them. Shared by every instance of
 * one run (they all run in this JVM).
 */
final class FencedResource {

	private final Map<String, Long> highest = new HashMap<>();

	private final List<Accepted> accepted = new ArrayList<>();

	/**
	 * Writes, unless a higher token was accepted for the key.
	 * @param key the key
	 * @param token the writer's fencing token
	 * @param holder the acquisition that writes
	 * @param at when (the history's clock)
	 * @return whether the write was accepted
	 */
	synchronized boolean write(String key, long token, int holder, long at) {
		Long top = this.highest.get(key);
		if (top != null && token < top) {
			return false;
		}
		this.highest.put(key, token);
		this.accepted.add(new Accepted(key, token, holder, at));
		return true;
	}

	/**
	 * Takes back a write a recorded run accepted.
	 * @param write the write
	 */
	synchronized void restore(Accepted write) {
		this.highest.merge(write.key(), write.token(), Math::max);
		this.accepted.add(write);
	}

	synchronized List<Accepted> accepted() {
		return List.copyOf(this.accepted);
	}

	/**
	 * One accepted write.
	 *
	 * @param key the key
	 * @param token its fencing token
	 * @param holder the acquisition that wrote it
	 * @param at when it was accepted
	 */
	record Accepted(String key, long token, int holder, long at) {

		@Override
		public String toString() {
			return String.format("holder %d token %d at %.1f ms", this.holder, this.token, this.at / 1e6);
		}

	}

}
