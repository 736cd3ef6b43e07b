package io.github.redkit.region.internal;

import io.github.redkit.core.RedkitMeter;

/**
 * The meters of multi-region replication. Tagged by peer region (configured, so few),
 * never by counter name.
 */
final class RegionMeters {

	/** Batches applied on a peer; tag {@code peer}. */
	static final RedkitMeter SHIPPED = RedkitMeter.counter("redkit.regions.replication.batches",
			"Outbox batches applied on a peer region");

	/** Failed replication rounds; tags {@code peer}, {@code exception}. */
	static final RedkitMeter ERRORS = RedkitMeter.counter("redkit.regions.replication.errors",
			"Replication rounds to a peer region that failed");

	/** Outbox entries a peer never received because the bound trimmed them; tag peer. */
	static final RedkitMeter TRIMMED = RedkitMeter.counter("redkit.regions.outbox.trimmed",
			"Outbox entries trimmed before they were shipped to a peer region");

	/** Times this region recovered its own slot after its Redis lost it. */
	static final RedkitMeter RECOVERIES = RedkitMeter.counter("redkit.regions.local.recoveries",
			"Times this region took its own slots back from the peers after its Redis lost them");

	/** Peers re-seeded after a trimmed outbox; tag {@code peer}. */
	static final RedkitMeter RESEEDS = RedkitMeter.counter("redkit.regions.replication.reseeds",
			"Peer regions re-seeded with this region's slots after a trimmed outbox");

	/** Entries written to the outbox and not yet shipped to a peer; tag {@code peer}. */
	static final RedkitMeter LAG_ENTRIES = RedkitMeter.gauge("redkit.regions.replication.lag.entries",
			"Outbox entries not yet shipped to a peer region");

	/** Age of the oldest entry not yet shipped to a peer; tag {@code peer}. */
	static final RedkitMeter LAG_SECONDS = RedkitMeter.gauge("redkit.regions.replication.lag.seconds",
			"Age in seconds of the oldest outbox entry not yet shipped to a peer region");

	/** 1 from a trimmed outbox until the peer is re-seeded; tag {@code peer}. */
	static final RedkitMeter RESEED = RedkitMeter.gauge("redkit.regions.replication.reseed.required",
			"1 when a peer region missed trimmed outbox entries and must be re-seeded");

	/** Seconds since the last failed round to a peer, -1 when none; tag {@code peer}. */
	static final RedkitMeter LAST_ERROR = RedkitMeter.gauge("redkit.regions.replication.last.error.age",
			"Seconds since the last failed replication round to a peer region, -1 when none");

	/** Entries in the local outbox. */
	static final RedkitMeter OUTBOX_DEPTH = RedkitMeter.gauge("redkit.regions.outbox.depth",
			"Entries in this region's outbox stream");

	/** Budget changes refused; tag {@code reason} ({@code recovering}). */
	static final RedkitMeter BUDGETS_REFUSED = RedkitMeter.counter("redkit.regions.budgets.refused",
			"Budget changes refused because this region's Redis did not hold its own slot yet");

	private RegionMeters() {
	}

}
