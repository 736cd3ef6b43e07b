package io.github.redkit.upgrade;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import io.github.redkit.budget.Budgets;
import io.github.redkit.concurrency.ConcurrencyLimiter;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.idempotency.IdempotentSteps;
import io.github.redkit.lock.DistributedLocks;
import io.github.redkit.queue.QueueTemplate;
import io.github.redkit.ratelimit.RateLimiter;
import io.github.redkit.region.RegionalBudgets;
import io.github.redkit.region.RegionalCounters;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.Environment;

/**
 * One instance of the fleet: a user application with Redkit configured through
 * properties, driving every capability from threads of its own and writing each call to
 * its history, until it is stopped.
 */
final class WorkloadInstance {

	private static final Log logger = LogFactory.getLog(WorkloadInstance.class);

	private final String name;

	private final ConfigurableApplicationContext context;

	private final HistoryLog history;

	private final Loops loops;

	private final QueueLoad queue;

	private final DelayLoad delays;

	private final DeadLetterLoad deadLetters;

	private final HeldLoad held;

	private final BudgetLoad budgets;

	private final @Nullable RegionLoad regions;

	private WorkloadInstance(String name, ConfigurableApplicationContext context, HistoryLog history, Loops loops,
			QueueLoad queue, DelayLoad delays, DeadLetterLoad deadLetters, HeldLoad held, BudgetLoad budgets,
			@Nullable RegionLoad regions) {
		this.name = name;
		this.context = context;
		this.history = history;
		this.loops = loops;
		this.queue = queue;
		this.delays = delays;
		this.deadLetters = deadLetters;
		this.held = held;
		this.budgets = budgets;
		this.regions = regions;
	}

	String name() {
		return this.name;
	}

	/**
	 * Starts an instance and its load, or writes to its history why it could not.
	 * @param args its arguments ({@code --name=value})
	 * @return the instance, or null when it failed to start
	 */
	static @Nullable WorkloadInstance start(List<String> args) {
		String name = argument(args, "upgrade.instance");
		HistoryLog history = new HistoryLog(Path.of(argument(args, "upgrade.history")), name,
				argument(args, "upgrade.version"), argument(args, "upgrade.region", "eu"));
		try {
			ConfigurableApplicationContext context = new SpringApplicationBuilder(Workload.class)
				.web(WebApplicationType.NONE)
				.run(args.toArray(String[]::new));
			return load(name, context, history);
		}
		catch (RuntimeException ex) {
			logger.error(name + " did not start", ex);
			failed(history, ex);
			return null;
		}
	}

	private static WorkloadInstance load(String name, ConfigurableApplicationContext context, HistoryLog history) {
		Environment environment = context.getEnvironment();
		// where the library was loaded from: the test checks each instance runs the
		// version it meant
		history.write("instance", "started", "", HistoryLog.micros(), HistoryLog.micros(), Map.of("outcome", "ok",
				"library", RateLimiter.class.getProtectionDomain().getCodeSource().getLocation()));
		BudgetLoad budgets = new BudgetLoad(context.getBean(Budgets.class), history);
		budgets.create();
		QueueLoad queue = new QueueLoad(context.getBean(QueueTemplate.class), history, name);
		DelayLoad delays = new DelayLoad(context.getBean(QueueTemplate.class), history);
		DeadLetterLoad deadLetters = new DeadLetterLoad(context.getBean(QueueTemplate.class), history, name);
		HeldLoad held = new HeldLoad(context.getBean(QueueTemplate.class), history, name);
		List<String> limits = Arrays.asList(environment.getRequiredProperty("upgrade.limits").split(","));
		RateLimitLoad rateLimits = new RateLimitLoad(context.getBean(RateLimiter.class), history, limits);
		LockLoad locks = new LockLoad(context.getBean(DistributedLocks.class), history);
		LockForceLoad forcedLocks = new LockForceLoad(context.getBean(DistributedLocks.class),
				context.getBean(RedisScriptRunner.class), context.getBean(RedisKeyspace.class), history);
		StepLoad steps = new StepLoad(context.getBean(IdempotentSteps.class), history);
		AbandonLoad abandons = new AbandonLoad(context.getBean(IdempotentSteps.class), history);
		ConcurrencyLoad concurrency = new ConcurrencyLoad(context.getBean(ConcurrencyLimiter.class), history);
		RegionLoad regions = null;
		if (environment.containsProperty("redkit.regions.local")) {
			regions = new RegionLoad(context.getBean(RegionalCounters.class), context.getBean(RegionalBudgets.class),
					history, environment.getProperty("upgrade.region", "eu"));
			regions.prepare(Arrays.asList(environment.getRequiredProperty("upgrade.regions").split(",")),
					environment.getProperty("upgrade.setup", Boolean.class, false));
		}
		BudgetCycleLoad budgetCycles = new BudgetCycleLoad(context.getBean(Budgets.class), history);
		CachedValues cachedValues = context.getBean(CachedValues.class);
		cachedValues.writeTo(history, name);
		CacheLoad cache = new CacheLoad(cachedValues, history);
		Loops loops = new Loops(name);
		// the limits called often enough to be exhausted (a rate limit of 20 per 500 ms
		// on each of four or five limits, a concurrency limit of 2 for three threads)
		loops.start("rate-limit", 2, 3, rateLimits::step);
		loops.start("concurrency", 3, 3, concurrency::step);
		loops.start("lock", 2, 10, locks::step);
		loops.start("lock-force", 1, 10, forcedLocks::step);
		loops.start("cache", 1, 10, cache::step);
		loops.start("budget-cycle", 1, 10, budgetCycles::step);
		loops.start("budget", 1, 10, budgets::step);
		loops.start("queue-send", 1, 10, queue::send);
		loops.start("queue-take", 1, 10, queue::take);
		loops.start("queue-delay", 1, 10, delays::send);
		loops.start("queue-delay-take", 1, 10, delays::take);
		loops.start("dead-letter", 1, 10, deadLetters::step);
		loops.start("queue-held-send", 1, 60, held::send);
		loops.start("queue-held-take", 1, 10, held::take);
		loops.start("step", 1, 10, steps::step);
		loops.start("step-abandon", 1, 10, abandons::step);
		if (regions != null) {
			loops.start("region", 1, 10, regions::step);
		}
		history.event("ready");
		return new WorkloadInstance(name, context, history, loops, queue, delays, deadLetters, held, budgets, regions);
	}

	/**
	 * Stops the load once the calls in progress ended (nothing taken is left behind),
	 * then the application; the history ends with {@code closed}, or {@code failed}.
	 * @param last whether it is the last of its region: it drains the queue and reads the
	 * final balances first
	 */
	void stop(boolean last) {
		try {
			this.loops.stop();
			if (last) {
				this.queue.drain();
				this.delays.drain();
				this.deadLetters.drain();
				this.held.drain();
				this.budgets.finish();
				if (this.regions != null) {
					this.regions.finish();
				}
			}
			this.history.event("stopped");
			this.context.close();
			this.history.event("closed");
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			failed(this.history, ex);
		}
		catch (RuntimeException ex) {
			logger.error(this.name + " did not stop", ex);
			failed(this.history, ex);
		}
		finally {
			this.history.close();
		}
	}

	private static void failed(HistoryLog history, Exception ex) {
		long now = HistoryLog.micros();
		history.write("instance", "failed", "", now, now, Map.of("outcome", "error", "error", ex.toString()));
		history.close();
	}

	private static String argument(List<String> args, String name) {
		String value = find(args, name);
		if (value == null) {
			throw new IllegalArgumentException("no --" + name + " in " + args);
		}
		return value;
	}

	private static String argument(List<String> args, String name, String otherwise) {
		String value = find(args, name);
		return (value != null) ? value : otherwise;
	}

	private static @Nullable String find(List<String> args, String name) {
		String prefix = "--" + name + "=";
		for (String arg : args) {
			if (arg.startsWith(prefix)) {
				return arg.substring(prefix.length());
			}
		}
		return null;
	}

}
