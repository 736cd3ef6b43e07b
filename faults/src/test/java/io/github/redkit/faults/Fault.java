package io.github.redkit.faults;

/**
 * The faults the nemesis can inject, all real and all on this machine's loopback.
 */
enum Fault {

	/**
	 * The Redis process stopped ({@code SIGSTOP}), then continued: connections stay open,
	 * nothing answers.
	 */
	PAUSE("Redis frozen (SIGSTOP)", false, true),

	/** {@code CLIENT PAUSE ... ALL}: Redis holds every client's commands. */
	CLIENT_PAUSE("CLIENT PAUSE ALL", false, true),

	/** Redis killed ({@code SIGKILL}) and started again without its data. */
	RESTART_EMPTY("Redis restarted empty", true, false),

	/**
	 * Redis saved ({@code SAVE}), written to for a while, then killed and started on that
	 * older file.
	 */
	RESTART_FROM_SNAPSHOT("Redis restarted from an older snapshot", true, true),

	/**
	 * One link (an instance's connection to a Redis) delayed by tens to hundreds of
	 * milliseconds each way.
	 */
	LATENCY("latency on a link", false, true),

	/**
	 * One link cut off: nothing passes until healed, then what was held arrives.
	 */
	PARTITION("a link partitioned", false, true),

	/** Every connection of one link closed at once. */
	CUT("a link's connections cut", false, false),

	/** {@code SCRIPT FLUSH}: the next call of every script meets {@code NOSCRIPT}. */
	SCRIPT_FLUSH("SCRIPT FLUSH", false, false),

	/** Redis' wall clock stepped forward or back by one to five seconds (libfaketime). */
	CLOCK_JUMP("Redis' clock jumped", true, false),

	/**
	 * Redis failed over to a replica that is behind: the replication link cut, the master
	 * acknowledging writes for a while, then killed, the replica promoted, every link
	 * pointed at it.
	 */
	FAILOVER_BEHIND("failover to a replica that is behind", true, true),

	/**
	 * One link's next request forwarded to Redis and its reply dropped, the connection
	 * then closed ({@code TcpProxy.cutAfterNextWrite()}): Redis applied the command, the
	 * client never saw the answer, and Lettuce sends it again once reconnected. Scheduled
	 * from a stream of its own (see {@link Schedule#generate}).
	 */
	CUT_AFTER_WRITE("a link cut after a request was written, before its reply", false, false);

	private final String description;

	private final boolean forgets;

	private final boolean lasts;

	Fault(String description, boolean forgets, boolean lasts) {
		this.description = description;
		this.forgets = forgets;
		this.lasts = lasts;
	}

	String description() {
		return this.description;
	}

	/**
	 * Whether Redis' state or clock is not what it was after this fault: a promise that
	 * lives in Redis' memory or on its clock is judged per epoch between such faults.
	 */
	boolean forgets() {
		return this.forgets;
	}

	/**
	 * Whether the fault lasts a while before it heals (an instant one is done at once).
	 */
	boolean lasts() {
		return this.lasts;
	}

	/**
	 * Whether Redis comes back with what it held when the fault began (a snapshot, a
	 * replica cut off then), rather than with nothing.
	 */
	boolean keepsWhatCameBefore() {
		return this == RESTART_FROM_SNAPSHOT || this == FAILOVER_BEHIND;
	}

	/**
	 * Whether the fault hits a link between an instance and a Redis rather than a Redis.
	 */
	boolean onLink() {
		return this == LATENCY || this == PARTITION || this == CUT || this == CUT_AFTER_WRITE;
	}

}
