package io.github.redkit.testsupport;

/**
 * Where a server stands in its replication history, read from {@code INFO replication}:
 * the history's id, how far into it the server is, and, for a replica, whether its link
 * to the master is up. A master restarted (empty, or on a snapshot) begins a new history,
 * so an offset means something only next to its id.
 *
 * @param replicationId the history's id ({@code master_replid})
 * @param offset how far into it ({@code master_repl_offset})
 * @param linkUp whether a replica's link to its master is up ({@code false} for a master)
 * @param syncing whether a replica is in a full sync: receiving or loading its master's
 * data set ({@code master_sync_in_progress})
 */
record ReplicationState(String replicationId, long offset, boolean linkUp, boolean syncing) {

	static ReplicationState of(RespClient client) {
		String replicationId = "";
		long offset = 0;
		boolean linkUp = false;
		boolean syncing = false;
		for (String line : client.callForString("INFO", "replication").split("\r?\n")) {
			if (line.startsWith("master_replid:")) {
				replicationId = line.substring("master_replid:".length()).trim();
			}
			else if (line.startsWith("master_repl_offset:")) {
				offset = Long.parseLong(line.substring("master_repl_offset:".length()).trim());
			}
			else if (line.startsWith("master_link_status:")) {
				linkUp = line.substring("master_link_status:".length()).trim().equals("up");
			}
			else if (line.startsWith("master_sync_in_progress:")) {
				syncing = line.substring("master_sync_in_progress:".length()).trim().equals("1");
			}
		}
		return new ReplicationState(replicationId, offset, linkUp, syncing);
	}

	/**
	 * Whether this replica holds everything a master had acknowledged: linked to it, in
	 * its present history, and at least as far as it was then. A master that had no
	 * replica since it started keeps no history and begins one (a new id) when one
	 * attaches, by a full sync, which carries everything written before.
	 * @param acknowledged the master's state when it was read first
	 * @param master the master's state now
	 * @return whether nothing the master acknowledged then is missing here
	 */
	boolean holds(ReplicationState acknowledged, ReplicationState master) {
		if (!this.linkUp || !this.replicationId.equals(master.replicationId)) {
			return false;
		}
		return !master.replicationId.equals(acknowledged.replicationId) || this.offset >= acknowledged.offset;
	}

	/**
	 * Whether a master is in a full sync with the replica on a port, as the master sees
	 * it: waiting for its data set's fork or sending it, or done sending and no offset
	 * acknowledged yet (the replica loading it, during which the replica itself may not
	 * answer for seconds: it serves clients only between reads of the data set).
	 * @param master a client of the master
	 * @param replicaPort the replica's port
	 * @return whether a full sync to it is under way
	 */
	static boolean fullSyncTo(RespClient master, int replicaPort) {
		for (String line : master.callForString("INFO", "replication").split("\r?\n")) {
			if (line.startsWith("slave") && line.contains(",port=" + replicaPort + ",")) {
				return line.contains("state=wait_bgsave") || line.contains("state=send_bulk")
						|| (line.contains("state=online") && line.contains(",offset=0,"));
			}
		}
		return false;
	}

}
