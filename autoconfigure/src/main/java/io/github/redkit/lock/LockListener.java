package io.github.redkit.lock;

/**
 * Reacts when a held lock is found lost: a renewal was refused or could not reach Redis
 * before the lease ran out, a lease ran out before the holder released it, or a release
 * found someone else's lock. Declare beans of this type; they are called on Redkit's
 * watchdog thread or on the releasing thread, so keep them short.
 */
@FunctionalInterface
public interface LockListener {

	/**
	 * Called once per lost acquisition.
	 * @param handle the lost acquisition ({@link LockHandle#isHeld()} is already false)
	 */
	void onLeaseLost(LockHandle handle);

}
