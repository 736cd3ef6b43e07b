package io.github.redkit.doctor.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.stream.Collectors;

import io.github.redkit.core.ServerNeed;
import io.github.redkit.core.ServerNeeds;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.doctor.DoctorFinding;
import io.github.redkit.doctor.DoctorFinding.Status;
import io.github.redkit.doctor.DoctorReport;
import io.github.redkit.doctor.ServerDoctor;
import io.github.redkit.doctor.internal.ServerSettingsReader.NodeReading;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The server doctor on Redis: reads each writable node's settings within a timeout and
 * judges them against the needs the capabilities in use declared. A cluster is judged by
 * its worst live master; a master marked failed, or one that does not answer within the
 * timeout (paused before the cluster marks it failed), is one finding of its own: each
 * master is read on its own, so a silent one holds up no other.
 */
public final class RedisServerDoctor implements ServerDoctor {

	private static final Comparator<DoctorFinding> WORST_FIRST = Comparator
		.comparingInt((DoctorFinding finding) -> -gravity(finding.status()));

	private final ServerSettingsReader reader;

	private final List<ServerNeeds> needs;

	private final Duration timeout;

	// at most one listing of the nodes and one reading per node in flight: a frozen
	// Redis holds one thread, not one per call
	private @Nullable CompletableFuture<List<NodeReading>> listing;

	private final Map<String, CompletableFuture<NodeSettings>> reading = new HashMap<>();

	/**
	 * Creates the doctor.
	 * @param connectionFactory the Redis Redkit uses
	 * @param needs what each capability in use needs
	 * @param timeout the longest wait for the server's answers
	 */
	public RedisServerDoctor(RedisConnectionFactory connectionFactory, List<ServerNeeds> needs, Duration timeout) {
		this.reader = new ServerSettingsReader(connectionFactory);
		this.needs = List.copyOf(needs);
		this.timeout = timeout;
	}

	@Override
	public DoctorReport examine() {
		long deadline = System.nanoTime() + this.timeout.toNanos();
		List<NodeReading> readings;
		try {
			readings = readings().get(this.timeout.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (TimeoutException ex) {
			return unanswered("Redis did not answer within " + this.timeout);
		}
		catch (ExecutionException ex) {
			return unanswered("Redis did not answer: " + reason(ex));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return unanswered("interrupted");
		}
		List<CompletableFuture<NodeSettings>> started = readings.stream().map(this::start).toList();
		List<NodeSettings> nodes = new ArrayList<>();
		for (int i = 0; i < readings.size(); i++) {
			NodeReading reading = readings.get(i);
			try {
				nodes.add(started.get(i).get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
			}
			catch (TimeoutException ex) {
				// a cluster's master that does not answer (paused, not yet marked
				// failed) is one finding; the others are still judged
				if (!reading.clusterNode()) {
					return unanswered("Redis did not answer within " + this.timeout);
				}
				nodes.add(NodeSettings.failed(reading.node(), "did not answer within " + this.timeout));
			}
			catch (ExecutionException ex) {
				if (!reading.clusterNode()) {
					return unanswered("Redis did not answer: " + reason(ex));
				}
				nodes.add(NodeSettings.failed(reading.node(), "did not answer (" + reason(ex) + ")"));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return unanswered("interrupted");
			}
		}
		List<NodeSettings> live = nodes.stream().filter((node) -> node.failure() == null).toList();
		List<NodeSettings> failed = nodes.stream().filter((node) -> node.failure() != null).toList();
		if (live.isEmpty() && !failed.isEmpty()) {
			return unanswered("no master answered: " + failures(failed));
		}
		List<DoctorFinding> findings = new ArrayList<>();
		addFinding(findings, ServerNeed.NO_EVICTION, "maxmemory-policy", RedisServerDoctor::eviction, live);
		addFinding(findings, ServerNeed.PERSISTENCE, "persistence", RedisServerDoctor::persistence, live);
		addFinding(findings, ServerNeed.REPLICATED_WRITES, "replication", RedisServerDoctor::replication, live);
		List<String> concerned = allCapabilities();
		if (!failed.isEmpty() && !concerned.isEmpty()) {
			findings.add(new DoctorFinding("cluster-nodes", Status.NOT_CHECKED, concerned, failed.size() + " of "
					+ nodes.size() + " masters not checked, the others were: " + failures(failed)));
		}
		findings.sort(WORST_FIRST);
		return new DoctorReport(describe(live, nodes.size(), failed.size()), findings);
	}

	private static String failures(List<NodeSettings> failed) {
		return failed.stream().map((node) -> node.node() + " " + node.failure()).collect(Collectors.joining("; "));
	}

	private List<String> allCapabilities() {
		return this.needs.stream()
			.filter((declared) -> !declared.needs().isEmpty())
			.map(ServerNeeds::capability)
			.distinct()
			.sorted()
			.toList();
	}

	private static int gravity(Status status) {
		return switch (status) {
			case OK -> 0;
			case NOTE -> 1;
			case NOT_CHECKED -> 2;
			case RISK -> 3;
		};
	}

	private static String reason(ExecutionException ex) {
		return ServerSettingsReader.reason((ex.getCause() != null) ? ex.getCause() : ex);
	}

	private synchronized CompletableFuture<List<NodeReading>> readings() {
		CompletableFuture<List<NodeReading>> listing = this.listing;
		if (listing == null || listing.isDone()) {
			listing = CompletableFuture.supplyAsync(this.reader::readings, RedisScriptRunner.blockingSteps());
			this.listing = listing;
		}
		return listing;
	}

	// one reading in flight per node: a frozen node holds one thread, not one per call
	private synchronized CompletableFuture<NodeSettings> start(NodeReading reading) {
		CompletableFuture<NodeSettings> inFlight = this.reading.get(reading.node());
		if (inFlight == null || inFlight.isDone()) {
			inFlight = CompletableFuture.supplyAsync(reading.read(), RedisScriptRunner.blockingSteps());
			this.reading.put(reading.node(), inFlight);
		}
		return inFlight;
	}

	private DoctorReport unanswered(String reason) {
		List<DoctorFinding> findings = new ArrayList<>();
		for (ServerNeed need : ServerNeed.values()) {
			List<String> capabilities = capabilities(need);
			if (!capabilities.isEmpty()) {
				findings.add(new DoctorFinding(check(need), Status.NOT_CHECKED, capabilities, reason));
			}
		}
		return new DoctorReport("unknown", findings);
	}

	private static String check(ServerNeed need) {
		return switch (need) {
			case NO_EVICTION -> "maxmemory-policy";
			case PERSISTENCE -> "persistence";
			case REPLICATED_WRITES -> "replication";
		};
	}

	private void addFinding(List<DoctorFinding> findings, ServerNeed need, String check,
			Function<NodeSettings, Verdict> judge, List<NodeSettings> nodes) {
		List<String> capabilities = capabilities(need);
		if (capabilities.isEmpty() || nodes.isEmpty()) {
			return;
		}
		NodeSettings worstNode = nodes.get(0);
		Verdict worst = judge.apply(worstNode);
		for (NodeSettings node : nodes.subList(1, nodes.size())) {
			Verdict verdict = judge.apply(node);
			if (gravity(verdict.status()) > gravity(worst.status())) {
				worst = verdict;
				worstNode = node;
			}
		}
		String detail = (nodes.size() > 1) ? worstNode.node() + ": " + worst.detail() : worst.detail();
		findings.add(new DoctorFinding(check, worst.status(), capabilities, detail));
	}

	private List<String> capabilities(ServerNeed need) {
		return this.needs.stream()
			.filter((declared) -> declared.needs().contains(need))
			.map(ServerNeeds::capability)
			.distinct()
			.sorted()
			.toList();
	}

	static Verdict eviction(NodeSettings node) {
		String policy = node.setting("maxmemory-policy", "maxmemory_policy");
		if (policy == null) {
			return new Verdict(Status.NOT_CHECKED, "maxmemory-policy could not be read: " + node.refusal());
		}
		if ("noeviction".equals(policy)) {
			return new Verdict(Status.OK, "noeviction: a full server refuses writes rather than evicting keys");
		}
		if ("0".equals(node.setting("maxmemory", "maxmemory"))) {
			return new Verdict(Status.NOTE,
					policy + " evicts nothing while no maxmemory is set, but would evict keys once one is");
		}
		return new Verdict(Status.RISK,
				policy + " with maxmemory " + node.setting("maxmemory", "maxmemory")
						+ " bytes: under memory pressure Redis may evict these capabilities' keys before they expire"
						+ (policy.startsWith("volatile")
								? " (all of them have an expiry, so volatile policies evict them too)" : "")
						+ "; use noeviction");
	}

	static Verdict persistence(NodeSettings node) {
		String appendOnly = node.setting("appendonly", null);
		if (appendOnly == null) {
			String aofEnabled = node.info().get("aof_enabled");
			appendOnly = (aofEnabled != null) ? ("1".equals(aofEnabled) ? "yes" : "no") : null;
		}
		if (appendOnly == null) {
			return new Verdict(Status.NOT_CHECKED, "persistence could not be read: " + node.refusal());
		}
		if ("yes".equals(appendOnly)) {
			String fsync = node.setting("appendfsync", null);
			return new Verdict(Status.OK,
					"append-only file"
							+ ((fsync != null)
									? ", appendfsync " + fsync
											+ ("always".equals(fsync) ? ""
													: ": a crash of the host may lose the writes not yet synced")
									: ""));
		}
		String save = node.config().get("save");
		if (save == null) {
			return new Verdict(Status.RISK, "no append-only file (snapshots could not be read: " + node.refusal()
					+ "): a restart loses at least the writes since the last snapshot");
		}
		if (save.isBlank()) {
			return new Verdict(Status.RISK, "no persistence (appendonly no, save \"\"): a restart loses every key");
		}
		return new Verdict(Status.RISK, "snapshots only (save \"" + save
				+ "\", appendonly no): a restart loses the writes since the last snapshot; use appendonly yes");
	}

	static Verdict replication(NodeSettings node) {
		String role = node.info().get("role");
		if (role == null) {
			return new Verdict(Status.NOT_CHECKED, "replication could not be read: " + node.refusal());
		}
		if (!"master".equals(role)) {
			return new Verdict(Status.NOTE, "connected to a " + role + ", which takes no writes");
		}
		String replicas = node.info().getOrDefault("connected_slaves", "0");
		if ("0".equals(replicas)) {
			return new Verdict(Status.OK, "no replica, so no failover to one that is behind");
		}
		String minReplicas = node.setting("min-replicas-to-write", null);
		return new Verdict(Status.NOTE,
				replicas + " replica(s), replicated asynchronously"
						+ ((minReplicas != null) ? " (min-replicas-to-write " + minReplicas + ")" : "")
						+ ": a failover may lose the last acknowledged writes; a lock's fencing token still rises");
	}

	private static String describe(List<NodeSettings> live, int masters, int failed) {
		if (live.isEmpty()) {
			return "unknown";
		}
		NodeSettings first = live.get(0);
		String valkey = first.info().get("valkey_version");
		String version = (valkey != null) ? "Valkey " + valkey
				: "Redis " + first.info().getOrDefault("redis_version", "(version not reported)");
		String mode = first.info().getOrDefault("redis_mode", "standalone");
		return version + " " + mode + ((masters > 1) ? " of " + masters + " masters" : "")
				+ ((failed > 0) ? ", " + failed + " failed" : "");
	}

	/**
	 * The verdict on one node.
	 *
	 * @param status the verdict
	 * @param detail what was found
	 */
	record Verdict(Status status, String detail) {

	}

}
