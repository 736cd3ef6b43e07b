package io.github.redkit.queue;

/**
 * What {@link QueueTemplate#sendDelayed} does with a payload equal (same JSON) to one
 * that is still waiting for its due time.
 */
public enum CollapsePolicy {

	/** The first one stays and keeps its due time; the repeat is dropped (seed 000). */
	FIRST_WINS("first-wins"),

	/** The repeat replaces the pending one and its delay restarts (debounce). */
	LAST_WINS("last-wins"),

	/** Every message is kept. */
	NONE("none");

	private final String scriptValue;

	CollapsePolicy(String scriptValue) {
		this.scriptValue = scriptValue;
	}

	/**
	 * Its name in configuration and in the queue's scripts.
	 * @return the name, such as {@code first-wins}
	 */
	public String scriptValue() {
		return this.scriptValue;
	}

}
