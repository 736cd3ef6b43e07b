package io.github.redkit.faults;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import io.github.redkit.testsupport.RedisNode;
import io.github.redkit.testsupport.RespClient;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * One run of a scenario under a schedule: real Redis servers, application instances that
 * reach them through links of their own, clients operating until the schedule ends while
 * the nemesis injects its faults, then everything healed, the scenario's final reads, and
 * the check.
 */
final class FaultRun {

	/** How long clients still busy at the end get before they are interrupted. */
	private static final Duration GRACE = Duration.ofSeconds(10);

	private static final Duration NEMESIS_GRACE = Duration.ofSeconds(60);

	private FaultRun() {
	}

	/**
	 * What a run found.
	 *
	 * @param capability the scenario's capability
	 * @param schedule the schedule it ran (without the faults this machine cannot inject)
	 * @param history the history
	 * @param violations what the checker found
	 * @param scenario the scenario that ran, for its {@link Scenario#evidence()}
	 * @param aimedCuts the cuts after a write done on each script they were aimed at
	 * ({@link Scenario#cutsAfterWriteHit()}), by its name: none for a run not aimed
	 */
	record Result(String capability, Schedule schedule, History history, List<String> violations, Scenario scenario,
			Map<String, Integer> aimedCuts) {

		boolean failed() {
			return !this.violations.isEmpty();
		}

	}

	static Result run(Supplier<? extends Scenario> scenarios, Schedule planned) {
		Scenario scenario = scenarios.get();
		Schedule schedule = planned;
		Optional<Path> server = scenario.server();
		if (server.isPresent()) {
			// only the embedded binary's clock can be moved
			schedule = schedule.withoutFault(Fault.CLOCK_JUMP);
		}
		boolean movableClocks = schedule.faults().contains(Fault.CLOCK_JUMP);
		boolean replicated = planned.faults().contains(Fault.FAILOVER_BEHIND);
		List<RedisNode> nodes = new ArrayList<>();
		List<ConfigurableApplicationContext> instances = new ArrayList<>();
		Rig rig = null;
		try {
			for (int i = 0; i < scenario.nodes(); i++) {
				if (movableClocks && !RedisNode.movableClockAvailable()) {
					// no libfaketime here: the rest of the schedule still runs
					schedule = schedule.withoutFault(Fault.CLOCK_JUMP);
					movableClocks = false;
				}
				nodes.add(server.isPresent() ? RedisNode.start(server.get(), replicated)
						: replicated ? RedisNode.startWithReplica(movableClocks)
								: movableClocks ? RedisNode.startWithMovableClock().orElseThrow() : RedisNode.start());
			}
			rig = new Rig(nodes);
			if (!scenario.cutsAfterWriteHit().isEmpty()) {
				rig.aimCutsAfterWrite(scenario.cutsAfterWriteHit());
			}
			instances.addAll(startInstances(scenario, rig));
			scenario.prepare(instances);
			History history = new History();
			Nemesis nemesis = new Nemesis(schedule, rig, history, scenario::beforeRestartEmpty);
			Thread nemesisThread = new Thread(nemesis, "nemesis");
			AtomicBoolean running = new AtomicBoolean(true);
			List<Thread> clients = startClients(scenario, schedule.seed(), instances, history, running);
			nemesisThread.start();
			long deadline = System.nanoTime() + schedule.millis() * 1_000_000;
			sleepUntil(deadline);
			running.set(false);
			// a fault is finished, never cut short: an interrupted failover leaves no
			// Redis on
			// the port (a loaded machine once took longer than the grace)
			join(nemesisThread, NEMESIS_GRACE);
			for (Thread client : clients) {
				join(client, GRACE);
			}
			nemesis.healAll();
			rig.nodes().forEach(FaultRun::awaitAnswering);
			scenario.settle(instances, history);
			return new Result(scenario.capability(), schedule, history, scenario.check(history), scenario,
					rig.aimedCuts());
		}
		finally {
			instances.forEach(ConfigurableApplicationContext::close);
			if (rig != null) {
				rig.close();
			}
			else {
				nodes.forEach(RedisNode::close);
			}
		}
	}

	/**
	 * Starts the instances one after another: Spring Boot's logging system is set up per
	 * application, and two starting at once trip over each other.
	 */
	private static List<ConfigurableApplicationContext> startInstances(Scenario scenario, Rig rig) {
		List<ConfigurableApplicationContext> started = new ArrayList<>();
		try {
			for (int i = 0; i < scenario.instances(); i++) {
				started.add(startInstance(scenario, scenario.instanceProperties(i, rig)));
			}
		}
		catch (RuntimeException ex) {
			started.forEach(ConfigurableApplicationContext::close);
			throw ex;
		}
		return started;
	}

	private static ConfigurableApplicationContext startInstance(Scenario scenario, List<String> where) {
		List<Class<?>> sources = new ArrayList<>(List.of(FaultApplication.class));
		sources.addAll(scenario.sources());
		return new SpringApplicationBuilder(sources.toArray(Class<?>[]::new)).web(WebApplicationType.NONE)
			.properties("spring.data.redis.timeout=1s", "spring.main.banner-mode=off", "redkit.key-prefix=faults")
			.properties(where.toArray(String[]::new))
			.properties(scenario.properties().toArray(String[]::new))
			.run();
	}

	private static List<Thread> startClients(Scenario scenario, long seed,
			List<ConfigurableApplicationContext> instances, History history, AtomicBoolean running) {
		List<Thread> clients = new ArrayList<>();
		int process = 0;
		for (ConfigurableApplicationContext instance : instances) {
			for (int i = 0; i < scenario.clientsPerInstance(); i++) {
				Client client = new Client(process, instance, new Random(seed * 1_000_003L + process), history);
				Thread thread = new Thread(() -> {
					while (running.get() && !Thread.currentThread().isInterrupted()) {
						try {
							scenario.operate(client);
						}
						catch (Exception ex) {
							// the history has it
						}
					}
				}, "client-" + process);
				thread.setDaemon(true);
				clients.add(thread);
				process++;
			}
		}
		clients.forEach(Thread::start);
		return clients;
	}

	private static void awaitAnswering(RedisNode redis) {
		long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
		while (System.nanoTime() < deadline) {
			try (RespClient client = redis.client()) {
				if ("PONG".equals(client.call("PING"))) {
					return;
				}
			}
			catch (RuntimeException ex) {
				// still restarting
			}
			sleepUntil(System.nanoTime() + 50_000_000);
		}
		throw new IllegalStateException("Redis did not answer after the faults healed");
	}

	private static void join(Thread thread, Duration grace) {
		try {
			thread.join(grace.toMillis());
			if (thread.isAlive()) {
				thread.interrupt();
				thread.join(grace.toMillis());
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static void sleepUntil(long deadline) {
		long wait = deadline - System.nanoTime();
		if (wait > 0) {
			try {
				Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
	}

}
