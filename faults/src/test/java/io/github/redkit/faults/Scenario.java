package io.github.redkit.faults;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import io.github.redkit.testsupport.RedisBinary;
import io.github.redkit.testsupport.RespClient;
import org.jspecify.annotations.Nullable;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * One capability under faults: how its instances are configured, what one client
 * operation is, and the checker that judges the whole history against the README's
 * promise. A new scenario is made for every run, so it may hold the run's state (a fenced
 * resource, the ids it sent).
 */
interface Scenario {

	/**
	 * The capability, as the reliability table names it.
	 */
	String capability();

	/**
	 * The promise the checker holds the history to, in the docs' words, with what each
	 * fault weakens.
	 */
	String guarantee();

	/**
	 * The faults this scenario runs under.
	 */
	Set<Fault> faults();

	/**
	 * Spring Boot properties of every instance, beyond where Redis is.
	 */
	List<String> properties();

	/**
	 * The server command the run starts its nodes with (see {@link RedisBinary#named}):
	 * by default the {@code redis-server} the other tests use. Another server's clock
	 * cannot be moved here, so its runs leave out clock steps.
	 */
	default Optional<Path> server() {
		return Optional.empty();
	}

	/**
	 * How many Redis servers the run starts (one per region, say).
	 */
	default int nodes() {
		return 1;
	}

	/**
	 * What the cuts after a write wait for, by the name of the script each is aimed at: a
	 * call of that script (its SHA-1, sent with {@code EVALSHA} or as the SHA-1 of the
	 * body an {@code EVAL} sends), so that the cuts hit the commands the scenario is
	 * about, each cut aimed at the next script in turn; by default (none) the next
	 * request.
	 * @return each aimed script's SHA-1, by its name, in the order the cuts take them
	 */
	default Map<String, byte[]> cutsAfterWriteHit() {
		return Map.of();
	}

	/**
	 * Where one instance finds Redis: by default a link of its own to node
	 * {@code instance % nodes()}.
	 * @param instance the instance's index
	 * @param rig the servers, to make links to
	 * @return the instance's own properties
	 */
	default List<String> instanceProperties(int instance, Rig rig) {
		return List.of("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + rig.link(instance % nodes()));
	}

	/**
	 * Configuration classes of every instance, beyond the auto-configuration.
	 */
	default List<Class<?>> sources() {
		return List.of();
	}

	/**
	 * How many application instances run, each with its own connection factory and its
	 * own proxy to Redis.
	 */
	default int instances() {
		return 3;
	}

	/**
	 * How many clients each instance runs.
	 */
	default int clientsPerInstance() {
		return 2;
	}

	/**
	 * Prepares Redis before the clients start (creates a budget, say).
	 * @param instances the started instances
	 */
	default void prepare(List<ConfigurableApplicationContext> instances) {
	}

	/**
	 * Reads what Redis holds of the scenario's state the moment before the nemesis kills
	 * it to restart it empty, so that the checker can tell what the restart lost from
	 * what was never there (the docs lose only what Redis held then). Recorded in the
	 * fault's {@link FaultRecord#held()}; by default nothing is read.
	 * @param redis a connection to the Redis about to be restarted
	 * @return what the checker needs, or {@code null}
	 */
	default @Nullable Object beforeRestartEmpty(RespClient redis) {
		return null;
	}

	/**
	 * Does one random operation and records it in the client's history.
	 * @param client the client doing it
	 * @throws Exception when the operation failed in a way the history already shows
	 */
	void operate(Client client) throws Exception;

	/**
	 * Runs once every fault has healed, before the check: final reads, a drain.
	 * @param instances the instances, connected again
	 * @param history the history, to record the final reads in
	 */
	default void settle(List<ConfigurableApplicationContext> instances, History history) {
	}

	/**
	 * What the checker reads beyond the history (the fenced resource's writes, a ledger),
	 * as a record, so that a run can be recorded and judged again ({@link Recording}); by
	 * default nothing.
	 * @return the evidence, or {@code null}
	 */
	default @Nullable Record evidence() {
		return null;
	}

	/**
	 * Takes back recorded evidence, before {@link #check} judges a recorded history.
	 * @param evidence what {@link #evidence()} returned in the recorded run
	 */
	default void restore(Object evidence) {
	}

	/**
	 * Judges the whole history.
	 * @param history what happened
	 * @return every violation, each with the operations that show it; empty when the
	 * promise held
	 */
	List<String> check(History history);

}
