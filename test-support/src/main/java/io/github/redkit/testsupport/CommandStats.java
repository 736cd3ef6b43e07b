package io.github.redkit.testsupport;

import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A snapshot of {@code INFO commandstats} summed over every node, to assert how many
 * commands (and so round trips) an operation costs. <pre>
 * CommandStats before = redis.commandStats();
 * limiter.tryAcquire("api", keys, 1);
 * CommandStats used = redis.commandStats().since(before);
 * assertThat(used.total()).isEqualTo(1);
 * </pre>
 */
public final class CommandStats {

	/**
	 * Commands no operation sends: the snapshots' own {@code INFO}, and the replication
	 * stream's (a replica acknowledges its offset every second whatever the clients do).
	 */
	private static final Set<String> NOT_SENT_BY_AN_OPERATION = Set.of("info", "replconf", "psync", "sync");

	private final Map<String, Long> calls;

	private CommandStats(Map<String, Long> calls) {
		this.calls = calls;
	}

	static CommandStats read(RedisServer server) {
		Map<String, Long> calls = new TreeMap<>();
		for (Object reply : server.callOnEveryNode("INFO", "commandstats")) {
			reply.toString().lines().filter((line) -> line.startsWith("cmdstat_")).forEach((line) -> {
				String name = line.substring("cmdstat_".length(), line.indexOf(':'));
				String stats = line.substring(line.indexOf(':') + 1);
				for (String field : stats.split(",")) {
					if (field.startsWith("calls=")) {
						calls.merge(name, Long.parseLong(field.substring("calls=".length())), Long::sum);
					}
				}
			});
		}
		return new CommandStats(calls);
	}

	/**
	 * The commands run between an earlier snapshot and this one.
	 * @param earlier the earlier snapshot
	 * @return the difference, without the {@code INFO} calls that took the snapshots and
	 * without replication traffic
	 */
	public CommandStats since(CommandStats earlier) {
		Map<String, Long> difference = new TreeMap<>();
		this.calls.forEach((name, count) -> {
			long delta = count - earlier.calls.getOrDefault(name, 0L);
			if (delta > 0 && !NOT_SENT_BY_AN_OPERATION.contains(name)) {
				difference.put(name, delta);
			}
		});
		return new CommandStats(difference);
	}

	/**
	 * These counts without some commands.
	 * @param commands the command names to leave out, lower case
	 * @return the counts of every other command
	 */
	public CommandStats without(Set<String> commands) {
		Map<String, Long> kept = new TreeMap<>(this.calls);
		kept.keySet().removeAll(commands);
		return new CommandStats(kept);
	}

	/**
	 * How many times one command ran.
	 * @param command the command name, lower case (e.g. {@code evalsha})
	 * @return the count
	 */
	public long calls(String command) {
		return this.calls.getOrDefault(command, 0L);
	}

	/**
	 * How many commands ran in all, {@code INFO} and replication traffic excepted.
	 * @return the count
	 */
	public long total() {
		return this.calls.entrySet()
			.stream()
			.filter((entry) -> !NOT_SENT_BY_AN_OPERATION.contains(entry.getKey()))
			.mapToLong(Map.Entry::getValue)
			.sum();
	}

	/**
	 * Every command and its count.
	 * @return an unmodifiable map
	 */
	public Map<String, Long> asMap() {
		return Collections.unmodifiableMap(this.calls);
	}

	@Override
	public String toString() {
		return this.calls.toString();
	}

}
