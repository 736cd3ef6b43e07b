package io.github.redkit.shedlock;

import java.time.LocalDate;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.redkit.lock.DistributedLocks;
import io.github.redkit.testsupport.RedisServers;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The ShedLock snippets of {@code docs/locks.md}: its configuration and a scheduled task
 * that reads its fencing token.
 */
@SpringBootTest(classes = ShedLockDocsTests.Application.class, webEnvironment = SpringBootTest.WebEnvironment.NONE,
		properties = "spring.config.location=classpath:docs/shedlock.yml")
class ShedLockDocsTests {

	@Autowired
	NightlyReport task;

	@Autowired
	LockProvider lockProvider;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		for (String property : RedisServers.standalone().springProperties()) {
			int equals = property.indexOf('=');
			registry.add(property.substring(0, equals), () -> property.substring(equals + 1));
		}
		registry.add("redkit.key-prefix", () -> "shedlock-docs-" + UUID.randomUUID());
	}

	@Test
	void theTaskRunsOnceUnderARedkitLockAndReadsItsFencingToken() {
		assertThat(this.lockProvider).isInstanceOf(RedkitLockProvider.class);
		this.task.nightlyReport();
		// lockAtLeastFor keeps the lock: a second run within the minute is skipped
		this.task.nightlyReport();
		assertThat(this.task.reports().written()).singleElement().satisfies((fence) -> assertThat(fence).isPositive());
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@EnableSchedulerLock(defaultLockAtMostFor = "10m")
	@Import({ NightlyReport.class, Reports.class })
	static class Application {

	}

	@Component
	static class Reports {

		private final List<Long> fences = new CopyOnWriteArrayList<>();

		void write(LocalDate day, long fence) {
			this.fences.add(fence);
		}

		List<Long> written() {
			return this.fences;
		}

	}

	@Component
	static class NightlyReport {

		private final Reports reports;

		NightlyReport(Reports reports) {
			this.reports = reports;
		}

		// tag::task[]
		@SchedulerLock(name = "nightly-report", lockAtMostFor = "10m", lockAtLeastFor = "1m")
		@Scheduled(cron = "0 0 2 * * *")
		public void nightlyReport() {
			// on the task's thread
			long fence = DistributedLocks.current().orElseThrow().fencingToken();
			reports.write(today(), fence);
		}
		// end::task[]

		// through the proxy, which has no state of its own
		public Reports reports() {
			return this.reports;
		}

		private LocalDate today() {
			return LocalDate.now();
		}

	}

}
