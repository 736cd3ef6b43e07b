package io.github.redkit.sample.ads;

import io.github.redkit.lock.LockNotAcquiredException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Runs the settlement on every instance's schedule; the instances that find it locked
 * skip their turn.
 */
@Component
class SettlementJob {

	private static final Log logger = LogFactory.getLog(SettlementJob.class);

	private final Settlement settlement;

	SettlementJob(Settlement settlement) {
		this.settlement = settlement;
	}

	@Scheduled(fixedDelayString = "${sample.settlement.interval}", initialDelayString = "${sample.settlement.interval}")
	void run() {
		try {
			logger.debug("Settled " + this.settlement.settle());
		}
		catch (LockNotAcquiredException ex) {
			logger.debug("Another instance is settling: skipped");
		}
	}

}
