package io.github.redkit.testsupport;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;
import java.util.function.Predicate;

/**
 * The commands Redis received while an action ran, recorded with {@code MONITOR} on every
 * node. Unlike {@link CommandStats} it tells the commands a client sent (round trips)
 * from the ones a script ran inside Redis. <pre>
 * CommandLog log = CommandLog.record(redis, () -&gt; limiter.tryAcquire("api", keys, 1));
 * assertThat(log.roundTrips()).isEqualTo(1);
 * </pre>
 */
public final class CommandLog {

	private final List<String> clientCommands;

	private final List<String> scriptCommands;

	private CommandLog(List<String> clientCommands, List<String> scriptCommands) {
		this.clientCommands = clientCommands;
		this.scriptCommands = scriptCommands;
	}

	/**
	 * Runs an action and records what Redis received meanwhile. Only sequential actions
	 * give exact counts; other clients' commands are recorded too.
	 * @param server the server or cluster
	 * @param action the action
	 * @return the log
	 */
	public static CommandLog record(RedisServer server, Runnable action) {
		List<RespClient> monitors = new ArrayList<>();
		Set<String> sentinels = new HashSet<>();
		try {
			for (int port : server.ports()) {
				RespClient monitor = RespClient.connect(RedisServer.HOST, port, Duration.ofSeconds(10));
				monitors.add(monitor);
				sentinels.addAll(sentinelAddresses(monitor.callForString("CLIENT", "LIST")));
				monitor.call("MONITOR");
			}
			action.run();
			String marker = "redkit-command-log-" + UUID.randomUUID();
			server.callOnEveryNode("ECHO", marker);
			List<String> client = new ArrayList<>();
			List<String> script = new ArrayList<>();
			for (RespClient monitor : monitors) {
				String line;
				while (!(line = String.valueOf(monitor.read())).contains(marker)) {
					if (!sentinels.contains(address(line))) {
						(line.contains(" lua] ") ? script : client).add(command(line));
					}
				}
			}
			return new CommandLog(client, script);
		}
		finally {
			monitors.forEach(RespClient::close);
		}
	}

	// Sentinels ping and query a master every second: their commands are not the action's
	private static Set<String> sentinelAddresses(String clientList) {
		Set<String> addresses = new HashSet<>();
		for (String client : clientList.split("\n")) {
			if (client.contains(" name=sentinel-")) {
				int start = client.indexOf("addr=") + 5;
				addresses.add(client.substring(start, client.indexOf(' ', start)));
			}
		}
		return addresses;
	}

	// "1700000000.123456 [0 127.0.0.1:50000] "ping"" -> "127.0.0.1:50000"
	private static String address(String line) {
		int start = line.indexOf('[');
		int end = line.indexOf(']', start + 1);
		if (start < 0 || end < 0) {
			return "";
		}
		String client = line.substring(start + 1, end);
		return client.substring(client.indexOf(' ') + 1);
	}

	private static String command(String line) {
		// the command name in lower case, as INFO commandstats names it: "evalsha" "sha"
		// ...
		int start = line.indexOf("] ");
		String command = (start >= 0) ? line.substring(start + 2) : line;
		int nameEnd = command.indexOf('"', 1);
		return (nameEnd > 0) ? command.substring(0, nameEnd).toLowerCase(Locale.ROOT) + command.substring(nameEnd)
				: command;
	}

	/**
	 * How many commands clients sent: the round trips, when nothing was pipelined.
	 * @return the count
	 */
	public int roundTrips() {
		return this.clientCommands.size();
	}

	/**
	 * How many client commands match a filter.
	 * @param filter applied to the quoted command line, e.g. {@code "evalsha" "sha" ...}
	 * with the name in lower case
	 * @return the count
	 */
	public long roundTrips(Predicate<String> filter) {
		return this.clientCommands.stream().filter(filter).count();
	}

	/**
	 * The commands clients sent, as {@code MONITOR} prints them.
	 * @return the commands, in the order each node received them
	 */
	public List<String> clientCommands() {
		return this.clientCommands;
	}

	/**
	 * The commands scripts ran inside Redis.
	 * @return the commands
	 */
	public List<String> scriptCommands() {
		return this.scriptCommands;
	}

	@Override
	public String toString() {
		return "client: " + this.clientCommands + ", in scripts: " + this.scriptCommands;
	}

}
