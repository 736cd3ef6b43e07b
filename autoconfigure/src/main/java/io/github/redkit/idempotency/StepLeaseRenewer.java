package io.github.redkit.idempotency;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Renews the leases of running steps on one daemon thread, every third of the lease, so
 * that a step that runs longer than its lease is not claimed again by a duplicate
 * delivery while its holder is alive. A renewal that finds the claim gone stops renewing:
 * the completion will then report the loss.
 */
final class StepLeaseRenewer {

	private static final Log logger = LogFactory.getLog(StepLeaseRenewer.class);

	private final ScheduledThreadPoolExecutor executor;

	StepLeaseRenewer() {
		this.executor = new ScheduledThreadPoolExecutor(1, (task) -> {
			Thread thread = new Thread(task, "redkit-step-leases");
			thread.setDaemon(true);
			return thread;
		});
		// finished steps cancel their task: keep the queue small
		this.executor.setRemoveOnCancelPolicy(true);
	}

	/**
	 * Starts renewing a claim until the returned renewal is stopped.
	 * @param steps renews the lease
	 * @param claim the claim
	 * @return the renewal, to stop when the step has run
	 */
	Renewal renew(IdempotentSteps steps, StepClaim claim) {
		long period = Math.max(1, claim.lease().toNanos() / 3);
		AtomicBoolean held = new AtomicBoolean(true);
		ScheduledFuture<?> task = this.executor.scheduleWithFixedDelay(() -> {
			if (held.get() && !extend(steps, claim)) {
				held.set(false);
				throw new IllegalStateException("claim lost: stop renewing");
			}
		}, period, period, TimeUnit.NANOSECONDS);
		return () -> task.cancel(false);
	}

	private static boolean extend(IdempotentSteps steps, StepClaim claim) {
		try {
			return steps.extend(claim);
		}
		catch (RuntimeException ex) {
			// Redis unreachable: keep trying until the lease runs out; the completion
			// tells
			logger.debug("Could not renew the claim of step '" + claim.step() + "'", ex);
			return true;
		}
	}

	/**
	 * A running renewal.
	 */
	interface Renewal {

		/**
		 * Stops renewing.
		 */
		void stop();

	}

}
