package io.github.redkit.lock;

/**
 * A {@code @DistributedLock} method (or a {@code withLock} action) completed, but its
 * lease was lost while it ran: another holder may have run at the same time, so its
 * result must not be treated as protected by the lock. The method's own effects have
 * happened (and a transaction inside the lock has committed): protect the resource itself
 * with the fencing token.
 */
public class LockLostException extends RuntimeException {

	private final transient LockHandle handle;

	/**
	 * Creates an exception.
	 * @param handle the lost acquisition
	 */
	public LockLostException(LockHandle handle) {
		super("Lock '" + handle.key() + "' (" + handle.name() + ", fencing token " + handle.fencingToken()
				+ ") was lost while the protected code ran");
		this.handle = handle;
	}

	/**
	 * The lost acquisition.
	 * @return the handle
	 */
	public LockHandle getHandle() {
		return this.handle;
	}

}
