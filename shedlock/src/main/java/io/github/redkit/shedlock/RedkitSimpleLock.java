package io.github.redkit.shedlock;

import java.util.Optional;

import io.github.redkit.lock.LockContext;
import io.github.redkit.lock.LockHandle;
import net.javacrumbs.shedlock.core.AbstractSimpleLock;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;

/**
 * A ShedLock lock held through a Redkit {@link LockHandle}. An extension hands the same
 * handle (same fencing token) to a new lock, as ShedLock wants a new lock per extension.
 */
final class RedkitSimpleLock extends AbstractSimpleLock {

	private final LockHandle handle;

	private final LockContext.Binding binding;

	RedkitSimpleLock(LockConfiguration configuration, LockHandle handle, LockContext.Binding binding) {
		super(configuration);
		this.handle = handle;
		this.binding = binding;
	}

	@Override
	protected void doUnlock() {
		try {
			// keeps it until lockAtLeastUntil when that is still ahead, else releases it
			this.handle.release(RedkitLockProvider.timeUntil(this.lockConfiguration.getLockAtLeastUntil()));
		}
		finally {
			this.binding.close();
		}
	}

	@Override
	protected Optional<SimpleLock> doExtend(LockConfiguration configuration) {
		if (this.handle.extend(RedkitLockProvider.leaseUntil(configuration.getLockAtMostUntil()))) {
			return Optional.of(new RedkitSimpleLock(configuration, this.handle, this.binding));
		}
		// lost: ShedLock will not unlock this lock any more
		this.binding.close();
		return Optional.empty();
	}

	LockHandle handle() {
		return this.handle;
	}

}
