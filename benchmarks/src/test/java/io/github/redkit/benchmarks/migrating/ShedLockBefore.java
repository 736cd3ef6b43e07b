package io.github.redkit.benchmarks.migrating;

import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.provider.redis.spring.RedisLockProvider;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * The ShedLock side of {@code docs/migrating/shedlock.md}: its Redis lock provider and a
 * task. Compiled against ShedLock, not run.
 */
class ShedLockBefore {

	// tag::provider[]
	@Configuration(proxyBeanMethods = false)
	@EnableSchedulerLock(defaultLockAtMostFor = "10m")
	static class SchedulingConfiguration {

		// keys job-lock:prod:<task name>
		@Bean
		LockProvider lockProvider(RedisConnectionFactory connectionFactory) {
			return new RedisLockProvider(connectionFactory, "prod");
		}

	}
	// end::provider[]

	static class NightlyReport {

		// tag::task[]
		@SchedulerLock(name = "nightly-report", lockAtMostFor = "10m", lockAtLeastFor = "1m")
		@Scheduled(cron = "0 0 2 * * *")
		public void nightlyReport() {
			reports.write();
		}
		// end::task[]

		private final Reports reports = new Reports();

	}

	static class Reports {

		void write() {
		}

	}

}
