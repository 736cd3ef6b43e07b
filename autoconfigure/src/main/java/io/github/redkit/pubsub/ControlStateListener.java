package io.github.redkit.pubsub;

/**
 * A bean that follows the desired values of one control group. It is called with the
 * current snapshot at start-up, after every change, and after every resubscription that
 * follows a reconnect, so a process that missed an announcement converges. Calls for one
 * group never overlap; the same version may be delivered more than once, so applying a
 * snapshot must be idempotent.
 */
public interface ControlStateListener {

	/**
	 * The group followed.
	 * @return the group name, e.g. {@code workers}
	 */
	String group();

	/**
	 * Applies the desired values. When it returns normally the version is acknowledged
	 * (see {@link ControlState#acknowledgements(String)}).
	 * @param snapshot the current values
	 */
	void onControlState(ControlSnapshot snapshot);

}
