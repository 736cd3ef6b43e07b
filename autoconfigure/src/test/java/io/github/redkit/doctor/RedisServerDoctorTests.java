package io.github.redkit.doctor;

import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

import io.github.redkit.core.ServerNeed;
import io.github.redkit.core.ServerNeeds;
import io.github.redkit.doctor.DoctorFinding.Status;
import io.github.redkit.doctor.internal.RedisServerDoctor;
import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import io.github.redkit.testsupport.RedisServers;
import io.github.redkit.testsupport.RespClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The server doctor on real servers started with each setting it judges: eviction
 * policies, persistence, replicas, a cluster, {@code CONFIG} renamed away as on a managed
 * service, a user the ACL denies {@code CONFIG} and {@code INFO}, a server away and a
 * frozen one.
 */
class RedisServerDoctorTests {

	private static final List<ServerNeeds> NEEDS = List.of(
			ServerNeeds.of("budget", ServerNeed.NO_EVICTION, ServerNeed.PERSISTENCE, ServerNeed.REPLICATED_WRITES),
			ServerNeeds.of("lock", ServerNeed.NO_EVICTION, ServerNeed.REPLICATED_WRITES),
			ServerNeeds.of("rate-limit", ServerNeed.NO_EVICTION));

	@Test
	void theSuiteDefaultsKeepKeysButPersistNothing(@PrivateRedis(process = true) RedisServer plain) {
		examine(plain, (report) -> {
			assertThat(report.server()).matches("(Redis|Valkey) \\d+\\.\\d+\\.\\d+ standalone");
			assertThat(finding(report, "maxmemory-policy").status()).isEqualTo(Status.OK);
			assertThat(finding(report, "maxmemory-policy").capabilities()).containsExactly("budget", "lock",
					"rate-limit");
			DoctorFinding persistence = finding(report, "persistence");
			assertThat(persistence.status()).isEqualTo(Status.RISK);
			assertThat(persistence.capabilities()).containsExactly("budget");
			assertThat(persistence.detail()).contains("a restart loses every key");
			assertThat(finding(report, "replication").status()).isEqualTo(Status.OK);
			assertThat(report.findings().get(0)).isEqualTo(persistence);
			assertThat(report.risks()).containsExactly(persistence);
		});
	}

	@Test
	void anEvictionPolicyWithAMemoryLimitIsARisk(
			@PrivateRedis(arguments = { "--maxmemory", "100mb", "--maxmemory-policy", "allkeys-lru" }) RedisServer lru,
			@PrivateRedis(arguments = { "--maxmemory", "100mb", "--maxmemory-policy",
					"volatile-ttl" }) RedisServer volatileTtl) {
		examine(lru, (report) -> {
			DoctorFinding eviction = finding(report, "maxmemory-policy");
			assertThat(eviction.status()).isEqualTo(Status.RISK);
			assertThat(eviction.detail()).contains("allkeys-lru", "104857600", "use noeviction");
		});
		examine(volatileTtl, (report) -> assertThat(finding(report, "maxmemory-policy").detail())
			.contains("volatile policies evict them too"));
	}

	@Test
	void anEvictionPolicyWithoutAMemoryLimitIsANote(
			@PrivateRedis(arguments = { "--maxmemory-policy", "allkeys-lfu" }) RedisServer lfu) {
		examine(lfu, (report) -> {
			assertThat(finding(report, "maxmemory-policy").status()).isEqualTo(Status.NOTE);
			assertThat(finding(report, "maxmemory-policy").detail()).contains("once one is");
		});
	}

	@Test
	void anAppendOnlyFileKeepsWritesAndSnapshotsAloneAreARisk(
			@PrivateRedis(arguments = { "--appendonly", "yes", "--appendfsync", "always" }) RedisServer alwaysSynced,
			@PrivateRedis(arguments = { "--appendonly", "yes" }) RedisServer appendOnly,
			@PrivateRedis(arguments = { "--save", "900 1" }) RedisServer snapshots) {
		examine(alwaysSynced, (report) -> {
			assertThat(finding(report, "persistence").status()).isEqualTo(Status.OK);
			assertThat(finding(report, "persistence").detail()).isEqualTo("append-only file, appendfsync always");
		});
		examine(appendOnly, (report) -> assertThat(finding(report, "persistence").detail())
			.contains("appendfsync everysec", "not yet synced"));
		examine(snapshots, (report) -> {
			assertThat(finding(report, "persistence").status()).isEqualTo(Status.RISK);
			assertThat(finding(report, "persistence").detail()).contains("snapshots only", "900 1");
		});
	}

	@Test
	void replicasAreANoteSinceReplicationIsAsynchronous(
			@PrivateRedis(arguments = { "--min-replicas-to-write", "1" }) RedisServer primary,
			@PrivateRedis(process = true) RedisServer replica) {
		// the primary's port is known only once it runs
		call(replica, replica.port(), "REPLICAOF", RedisServer.HOST, String.valueOf(primary.port()));
		long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
		while (!call(primary, primary.port(), "INFO", "replication").contains("connected_slaves:1")) {
			assertThat(System.nanoTime()).as("the replica connected").isLessThan(deadline);
			Thread.onSpinWait();
		}
		examine(primary, (report) -> {
			DoctorFinding replication = finding(report, "replication");
			assertThat(replication.status()).isEqualTo(Status.NOTE);
			assertThat(replication.capabilities()).containsExactly("budget", "lock");
			assertThat(replication.detail()).contains("1 replica(s)", "min-replicas-to-write 1", "fencing token");
		});
		examine(replica,
				(report) -> assertThat(finding(report, "replication").detail()).contains("connected to a slave"));
	}

	@Test
	void withoutConfigTheDoctorReadsWhatInfoMirrorsAndSaysWhatItCouldNot(
			@PrivateRedis(arguments = { "--rename-command", "CONFIG", "" }) RedisServer withoutConfig) {
		examine(withoutConfig, (report) -> {
			assertThat(finding(report, "maxmemory-policy").status()).isEqualTo(Status.OK);
			DoctorFinding persistence = finding(report, "persistence");
			assertThat(persistence.status()).isEqualTo(Status.RISK);
			assertThat(persistence.detail()).contains("snapshots could not be read", "CONFIG GET refused",
					"unknown command");
			assertThat(finding(report, "replication").detail()).doesNotContain("min-replicas-to-write");
		});
	}

	@Test
	void aUserDeniedConfigAndInfoGetsEveryCheckNotCheckedWithTheServersWords(
			@PrivateRedis(process = true) RedisServer redis) {
		call(redis, redis.port(), "ACL", "SETUSER", "app", "on", ">secret", "~*", "&*", "+@all", "-config", "-info");
		RedisStandaloneConfiguration configuration = new RedisStandaloneConfiguration(RedisServer.HOST, redis.port());
		configuration.setUsername("app");
		configuration.setPassword("secret");
		LettuceConnectionFactory factory = new LettuceConnectionFactory(configuration);
		factory.afterPropertiesSet();
		factory.start();
		try {
			DoctorReport report = new RedisServerDoctor(factory, NEEDS, Duration.ofSeconds(5)).examine();
			assertThat(report.findings()).extracting(DoctorFinding::status).containsOnly(Status.NOT_CHECKED);
			assertThat(report.notChecked()).hasSize(3);
			assertThat(finding(report, "persistence").detail()).contains("CONFIG GET refused", "INFO refused",
					"NOPERM");
		}
		finally {
			factory.destroy();
		}
	}

	@Test
	void aServerAwayOrFrozenLeavesEveryCheckNotCheckedWithinTheTimeout(
			@PrivateRedis(process = true) RedisServer redis) {
		LettuceConnectionFactory factory = redis.createConnectionFactory();
		try {
			RedisServerDoctor doctor = new RedisServerDoctor(factory, NEEDS, Duration.ofMillis(500));
			// connected first: a loaded machine's first reading may take longer than the
			// timeout
			await().atMost(Duration.ofSeconds(30)).until(() -> !doctor.examine().server().equals("unknown"));
			redis.pause();
			long start = System.nanoTime();
			DoctorReport frozen = doctor.examine();
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
			assertThat(frozen.server()).isEqualTo("unknown");
			assertThat(frozen.findings()).extracting(DoctorFinding::status).containsOnly(Status.NOT_CHECKED);
			assertThat(frozen.findings().get(0).detail()).contains("did not answer within");
			redis.resume();
			// the reading left waiting on the frozen server ends once it is back (a
			// loaded
			// machine may take longer than the timeout to read the answer: looked at
			// again)
			await().atMost(Duration.ofSeconds(30)).until(() -> !doctor.examine().server().equals("unknown"));
			redis.stop();
			DoctorReport away = doctor.examine();
			assertThat(away.server()).isEqualTo("unknown");
			assertThat(away.findings()).extracting(DoctorFinding::detail)
				.allMatch((detail) -> detail.startsWith("Redis did not answer"));
		}
		finally {
			factory.destroy();
		}
	}

	@Test
	void aClusterIsJudgedByItsWorstMaster() {
		RedisServer cluster = RedisServers.cluster();
		LettuceConnectionFactory factory = cluster.createConnectionFactory();
		int port = cluster.ports().get(1);
		try {
			call(cluster, port, "CONFIG", "SET", "maxmemory-policy", "allkeys-lru", "maxmemory", "1gb");
			DoctorReport report = new RedisServerDoctor(factory, NEEDS, Duration.ofSeconds(5)).examine();
			assertThat(report.server()).endsWith("cluster of 3 masters");
			DoctorFinding eviction = finding(report, "maxmemory-policy");
			assertThat(eviction.status()).isEqualTo(Status.RISK);
			assertThat(eviction.detail()).startsWith(RedisServer.HOST + ":" + port + ": allkeys-lru");
		}
		finally {
			call(cluster, port, "CONFIG", "SET", "maxmemory-policy", "noeviction", "maxmemory", "0");
			factory.destroy();
		}
	}

	@Test
	void aClusterWithAFailedMasterIsJudgedOnItsLiveMastersAndNamesTheFailedOne(
			@PrivateRedis(cluster = true) RedisServer cluster) {
		int live = cluster.ports().get(1);
		int failed = cluster.ports().get(2);
		call(cluster, live, "CONFIG", "SET", "maxmemory-policy", "allkeys-lru", "maxmemory", "1gb");
		// the masters agree on a failure after about twice their node timeout: 1 s
		// instead of the 5 s the test servers start with
		cluster.callOnEveryNode("CONFIG", "SET", "cluster-node-timeout", "1000");
		shutDown(failed);
		// the other masters agree that it failed: CLUSTER NODES shows it
		// "master,fail"
		await().atMost(Duration.ofSeconds(60))
			.pollInterval(Duration.ofMillis(100))
			.until(() -> call(cluster, cluster.ports().get(0), "CLUSTER", "NODES").lines()
				.anyMatch((node) -> node.contains(":" + failed + "@") && node.contains("master,fail ")));
		LettuceConnectionFactory factory = cluster.createConnectionFactory();
		try {
			DoctorReport report = new RedisServerDoctor(factory, NEEDS, Duration.ofSeconds(5)).examine();
			assertThat(report.server()).endsWith("cluster of 3 masters, 1 failed");
			DoctorFinding eviction = finding(report, "maxmemory-policy");
			assertThat(eviction.status()).isEqualTo(Status.RISK);
			assertThat(eviction.detail()).startsWith(RedisServer.HOST + ":" + live + ": allkeys-lru");
			assertThat(finding(report, "persistence").status()).isEqualTo(Status.RISK);
			assertThat(finding(report, "replication").status()).isEqualTo(Status.OK);
			DoctorFinding nodes = finding(report, "cluster-nodes");
			assertThat(nodes.status()).isEqualTo(Status.NOT_CHECKED);
			assertThat(nodes.capabilities()).containsExactly("budget", "lock", "rate-limit");
			assertThat(nodes.detail()).contains(RedisServer.HOST + ":" + failed, "master,fail");
			assertThat(report.notChecked()).containsExactly(nodes);
		}
		finally {
			factory.destroy();
		}
	}

	@Test
	void aClusterWithAPausedMasterIsJudgedOnItsLiveMastersWithinTheTimeout(
			@PrivateRedis(cluster = true) RedisServer cluster) {
		int live = cluster.ports().get(1);
		int paused = cluster.ports().get(2);
		call(cluster, live, "CONFIG", "SET", "maxmemory-policy", "allkeys-lru", "maxmemory", "1gb");
		LettuceConnectionFactory factory = cluster.createConnectionFactory();
		RedisServerDoctor doctor = new RedisServerDoctor(factory, NEEDS, Duration.ofMillis(1000));
		String pid = processId(cluster, paused);
		try {
			// connected to every node first (a loaded machine may take longer than
			// the
			// timeout)
			await().atMost(Duration.ofSeconds(30))
				.until(() -> doctor.examine().server().endsWith("cluster of 3 masters"));
			signal("STOP", pid);
			long start = System.nanoTime();
			DoctorReport report = doctor.examine();
			Duration took = Duration.ofNanos(System.nanoTime() - start);
			// within the doctor's timeout, long before the cluster's node timeout (5
			// s)
			// could mark it failed
			assertThat(took).isLessThan(Duration.ofSeconds(2));
			assertThat(report.server()).endsWith("cluster of 3 masters, 1 failed");
			DoctorFinding eviction = finding(report, "maxmemory-policy");
			assertThat(eviction.status()).isEqualTo(Status.RISK);
			assertThat(eviction.detail()).startsWith(RedisServer.HOST + ":" + live + ": allkeys-lru");
			assertThat(finding(report, "persistence").status()).isEqualTo(Status.RISK);
			assertThat(finding(report, "replication").status()).isEqualTo(Status.OK);
			DoctorFinding nodes = finding(report, "cluster-nodes");
			assertThat(nodes.status()).isEqualTo(Status.NOT_CHECKED);
			assertThat(nodes.detail()).contains(RedisServer.HOST + ":" + paused, "did not answer within");
			assertThat(report.notChecked()).containsExactly(nodes);
			// a second look while it is still paused waits on the same reading, and
			// answers as fast
			start = System.nanoTime();
			assertThat(doctor.examine().notChecked()).hasSize(1);
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
			signal("CONT", pid);
			await().atMost(Duration.ofSeconds(30)).until(() -> doctor.examine().notChecked().isEmpty());
		}
		finally {
			signal("CONT", pid);
			factory.destroy();
		}
	}

	private static String processId(RedisServer redis, int port) {
		return call(redis, port, "INFO", "server").lines()
			.filter((line) -> line.startsWith("process_id:"))
			.map((line) -> line.substring("process_id:".length()).trim())
			.findFirst()
			.orElseThrow();
	}

	/** Sends a signal to the redis-server process this test started. */
	private static void signal(String signal, String pid) {
		try {
			new ProcessBuilder("kill", "-" + signal, pid).start().waitFor();
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	/** Stops one node the way a crash does, without saving. */
	private static void shutDown(int port) {
		try (RespClient client = RespClient.connect(RedisServer.HOST, port, Duration.ofSeconds(1))) {
			client.call("SHUTDOWN", "NOSAVE");
		}
		catch (RuntimeException ex) {
			// SHUTDOWN closes the connection without a reply
		}
	}

	@ParameterizedTest
	@CsvSource({ "redis-8, Redis 8.", "valkey-8, Valkey 8.", "valkey-9, Valkey 9." })
	void namesTheServerItExamines(String name, String described) {
		assumeTrue(RedisServers.available(name), () -> name + " is not on this machine (.ci/servers fetches it)");
		examine(RedisServers.named(name), (report) -> {
			assertThat(report.server()).startsWith(described).endsWith(" standalone");
			assertThat(report.findings()).extracting(DoctorFinding::status).doesNotContain(Status.NOT_CHECKED);
		});
	}

	private static void examine(RedisServer redis, Consumer<DoctorReport> assertions) {
		LettuceConnectionFactory factory = redis.createConnectionFactory();
		try {
			// connected first: the JVM's first connection on a loaded machine may take
			// longer than the doctor's timeout, whichever test comes first (and, at a
			// load
			// near 50, longer than Lettuce's connect timeout: tried again)
			await().atMost(Duration.ofSeconds(60)).ignoreExceptions().untilAsserted(() -> {
				try (RedisConnection connection = factory.getConnection()) {
					connection.ping();
				}
			});
			assertions.accept(new RedisServerDoctor(factory, NEEDS, Duration.ofSeconds(5)).examine());
		}
		finally {
			factory.destroy();
		}
	}

	private static String call(RedisServer redis, int port, String... command) {
		try (RespClient client = redis.client(port)) {
			return String.valueOf(client.call(command));
		}
	}

	private static DoctorFinding finding(DoctorReport report, String check) {
		return report.findings()
			.stream()
			.filter((finding) -> finding.check().equals(check))
			.findFirst()
			.orElseThrow(() -> new AssertionError("no finding " + check + " in " + report));
	}

}
