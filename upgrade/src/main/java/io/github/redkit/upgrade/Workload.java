package io.github.redkit.upgrade;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import io.github.redkit.budget.Budgets;
import io.github.redkit.concurrency.ConcurrencyLimiter;
import io.github.redkit.idempotency.IdempotentSteps;
import io.github.redkit.lock.DistributedLocks;
import io.github.redkit.queue.QueueTemplate;
import io.github.redkit.ratelimit.RateLimiter;
import io.github.redkit.region.RegionalBudgets;
import io.github.redkit.region.RegionalCounters;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.Environment;

/**
 * One instance of the fleet: a user application with Redkit configured through
 * properties, started on whichever version's class path the test gives it. It drives
 * every capability until its standard input says {@code stop} (or ends), or {@code last}:
 * then it also drains the queue and reads the final balances before it exits.
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration
public class Workload {

	public static void main(String[] args) throws Exception {
		ConfigurableApplicationContext context = new SpringApplicationBuilder(Workload.class)
			.web(WebApplicationType.NONE)
			.run(args);
		Environment environment = context.getEnvironment();
		String instance = environment.getRequiredProperty("upgrade.instance");
		String region = environment.getProperty("upgrade.region", "eu");
		try (HistoryLog history = new HistoryLog(Path.of(environment.getRequiredProperty("upgrade.history")), instance,
				environment.getRequiredProperty("upgrade.version"), region)) {
			// where the library was loaded from: the test checks each instance runs the
			// version it meant
			history.write("instance", "started", "", HistoryLog.micros(), HistoryLog.micros(), java.util.Map
				.of("outcome", "ok", "library", RateLimiter.class.getProtectionDomain().getCodeSource().getLocation()));
			BudgetLoad budgets = new BudgetLoad(context.getBean(Budgets.class), history);
			budgets.create();
			QueueLoad queue = new QueueLoad(context.getBean(QueueTemplate.class), history, instance);
			List<String> limits = Arrays.asList(environment.getRequiredProperty("upgrade.limits").split(","));
			RateLimitLoad rateLimits = new RateLimitLoad(context.getBean(RateLimiter.class), history, limits);
			LockLoad locks = new LockLoad(context.getBean(DistributedLocks.class), history);
			StepLoad steps = new StepLoad(context.getBean(IdempotentSteps.class), history);
			ConcurrencyLoad concurrency = new ConcurrencyLoad(context.getBean(ConcurrencyLimiter.class), history);
			RegionLoad regions = null;
			if (environment.containsProperty("redkit.regions.local")) {
				regions = new RegionLoad(context.getBean(RegionalCounters.class),
						context.getBean(RegionalBudgets.class), history, region);
				regions.prepare(Arrays.asList(environment.getRequiredProperty("upgrade.regions").split(",")),
						environment.getProperty("upgrade.setup", Boolean.class, false));
			}
			Loops loops = new Loops();
			loops.start("rate-limit", 2, rateLimits::step);
			loops.start("lock", 2, locks::step);
			loops.start("budget", 1, budgets::step);
			loops.start("queue-send", 1, queue::send);
			loops.start("queue-take", 1, queue::take);
			loops.start("step", 1, steps::step);
			loops.start("concurrency", 3, concurrency::step);
			if (regions != null) {
				loops.start("region", 1, regions::step);
			}
			history.event("ready");
			String command = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
			loops.stop();
			if ("last".equals(command)) {
				queue.drain();
				budgets.finish();
				if (regions != null) {
					regions.finish();
				}
			}
			history.event("stopped");
		}
		finally {
			context.close();
		}
	}

}
