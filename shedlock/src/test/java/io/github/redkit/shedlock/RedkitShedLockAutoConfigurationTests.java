package io.github.redkit.shedlock;

import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.shedlock.autoconfigure.RedkitShedLockAutoConfiguration;
import io.github.redkit.shedlock.autoconfigure.RedkitShedLockProperties;
import io.github.redkit.autoconfigure.lock.LockAutoConfiguration;
import io.github.redkit.lock.DistributedLocks;
import io.github.redkit.lock.LockHandle;
import io.github.redkit.testsupport.RedisServers;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.junit.jupiter.api.Test;
import static org.assertj.core.api.Assertions.assertThat;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

class RedkitShedLockAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedkitAutoConfiguration.class,
				LockAutoConfiguration.class, RedkitShedLockAutoConfiguration.class))
		.withPropertyValues(RedisServers.standalone().springProperties())
		.withPropertyValues("redkit.key-prefix=shedlock-" + UUID.randomUUID(), "redkit.lock.redis-timeout=10s");

	@Test
	void providesALockProviderOnTheRedkitLocks() {
		this.runner.run((context) -> assertThat(context).hasSingleBean(RedkitLockProvider.class)
			.getBean(RedkitShedLockProperties.class)
			.extracting(RedkitShedLockProperties::getName)
			.isEqualTo("shedlock"));
	}

	@Test
	void backsOffWhenTheApplicationDeclaresALockProvider() {
		this.runner.withBean(LockProvider.class, () -> (configuration) -> Optional.empty())
			.run((context) -> assertThat(context).hasSingleBean(LockProvider.class)
				.doesNotHaveBean(RedkitLockProvider.class));
	}

	@Test
	void canBeDisabled() {
		this.runner.withPropertyValues("redkit.shedlock.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(LockProvider.class));
	}

	@Test
	void needsTheRedkitLocks() {
		this.runner.withPropertyValues("redkit.lock.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(LockProvider.class));
	}

	@Test
	void needsShedLock() {
		this.runner.withClassLoader(new FilteredClassLoader(LockProvider.class))
			.run((context) -> assertThat(context).doesNotHaveBean(RedkitLockProvider.class)
				.hasSingleBean(DistributedLocks.class));
	}

	@Test
	void aSchedulerLockMethodRunsUnderARedkitLockAndReadsItsFencingToken() {
		this.runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.withUserConfiguration(JobsConfiguration.class)
			.withPropertyValues("redkit.shedlock.name=jobs")
			.run((context) -> {
				Jobs jobs = context.getBean(Jobs.class);
				// a lock taken in another test of this thread and never unlocked stays
				// current
				Optional<LockHandle> before = DistributedLocks.current();
				jobs.report();
				// lockAtLeastFor keeps the lock: a second run is skipped
				jobs.report();
				assertThat(jobs.tokens()).singleElement().satisfies((token) -> assertThat(token).isPositive());
				assertThat(DistributedLocks.current()).isEqualTo(before);
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				assertThat(registry.get("redkit.lock.acquire")
					.tag("name", "jobs")
					.tag("outcome", "acquired")
					.counter()
					.count()).isOne();
				assertThat(registry.get("redkit.lock.acquire")
					.tag("name", "jobs")
					.tag("outcome", "not_acquired")
					.counter()
					.count()).isOne();
				assertThat(registry.find("redkit.lock.lease.lost").counters()).isEmpty();
			});
	}

	@Configuration(proxyBeanMethods = false)
	@EnableSchedulerLock(defaultLockAtMostFor = "10s")
	static class JobsConfiguration {

		@Bean
		Jobs jobs() {
			return new Jobs();
		}

	}

	static class Jobs {

		private final List<Long> tokens = new CopyOnWriteArrayList<>();

		@SchedulerLock(name = "report", lockAtLeastFor = "2s")
		public void report() {
			this.tokens.add(DistributedLocks.current().orElseThrow().fencingToken());
		}

		// through the proxy, which has no state of its own
		public List<Long> tokens() {
			return this.tokens;
		}

	}

}
