package io.github.redkit.autoconfigure.doctor;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import io.github.redkit.actuate.RedkitEndpoint;
import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.autoconfigure.actuate.RedkitEndpointAutoConfiguration;
import io.github.redkit.autoconfigure.budget.BudgetAutoConfiguration;
import io.github.redkit.autoconfigure.lock.LockAutoConfiguration;
import io.github.redkit.autoconfigure.ratelimit.RateLimitAutoConfiguration;
import io.github.redkit.doctor.DoctorFinding;
import io.github.redkit.doctor.DoctorReport;
import io.github.redkit.doctor.ServerDoctor;
import io.github.redkit.doctor.ServerRiskException;
import io.github.redkit.doctor.actuate.DoctorHealthIndicator;
import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import io.github.redkit.testsupport.RedisServers;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The server doctor as an application gets it: the needs of the capabilities in use only,
 * a warning or a failed start-up on a risk, health and the endpoint section.
 */
@ExtendWith(OutputCaptureExtension.class)
class DoctorAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedkitAutoConfiguration.class,
				BudgetAutoConfiguration.class, LockAutoConfiguration.class, RateLimitAutoConfiguration.class,
				RedkitEndpointAutoConfiguration.class, DoctorAutoConfiguration.class))
		.withPropertyValues(RedisServers.standalone().springProperties())
		.withPropertyValues("redkit.key-prefix=redkit-test-" + UUID.randomUUID());

	@Test
	void warnsAtStartUpNamingTheCapabilitiesAtRisk(CapturedOutput output) {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(ServerDoctor.class);
			DoctorReport report = context.getBean(ServerDoctor.class).examine();
			assertThat(report.risks()).extracting(DoctorFinding::check).containsExactly("persistence");
			assertThat(report.risks().get(0).capabilities()).containsExactly("budget");
			assertThat(report.findings()).extracting(DoctorFinding::check)
				.containsExactlyInAnyOrder("persistence", "maxmemory-policy", "replication");
			assertThat(finding(report, "maxmemory-policy").capabilities()).containsExactly("budget", "lock",
					"rate-limit");
		});
		assertThat(output).contains("Redkit's server doctor on ", ": persistence (budget) RISK: no persistence");
	}

	@Test
	void failsTheStartUpOnARiskWhenAskedTo() {
		this.runner.withPropertyValues("redkit.doctor.on-risk=fail")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.isInstanceOf(ServerRiskException.class)
				.hasMessageContaining("persistence (budget): no persistence")
				.hasMessageContaining("redkit.doctor.on-risk=warn"));
	}

	@Test
	void startsWithFailOnRiskOnAServerThatKeepsWhatTheCapabilitiesNeed(
			@PrivateRedis(arguments = { "--appendonly", "yes" }) RedisServer durable) {
		this.runner.withPropertyValues(durable.springProperties())
			.withPropertyValues("redkit.doctor.on-risk=fail")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void checksOnlyWhatTheCapabilitiesInUseNeed() {
		this.runner.withPropertyValues("redkit.budget.enabled=false", "redkit.doctor.on-risk=fail").run((context) -> {
			assertThat(context).hasNotFailed();
			DoctorReport report = context.getBean(ServerDoctor.class).examine();
			assertThat(report.findings()).extracting(DoctorFinding::check)
				.containsExactlyInAnyOrder("maxmemory-policy", "replication");
			assertThat(finding(report, "replication").capabilities()).containsExactly("lock");
		});
	}

	@Test
	void aServerThatDoesNotAnswerNeverStopsTheStartUp(CapturedOutput output) {
		int port = RedisServers.unusedPort();
		this.runner
			.withPropertyValues("spring.data.redis.port=" + port, "redkit.doctor.on-risk=fail",
					"redkit.doctor.timeout=500ms")
			.run((context) -> assertThat(context).hasNotFailed());
		assertThat(output).contains("NOT_CHECKED: Redis did not answer");
	}

	@Test
	void healthIsUpWithTheRisksInItsDetails() {
		this.runner.run((context) -> {
			Health health = context.getBean(DoctorHealthIndicator.class).health(true);
			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat(health.getDetails()).containsKeys("server", "risks", "notChecked");
			assertThat(health.getDetails().get("risks")).asString().contains("persistence");
		});
	}

	@Test
	void aGaugePerStatusCountsTheFindingsOfTheLastExaminationWithoutTheScrapeWaitingForRedis() {
		this.runner.withBean(SimpleMeterRegistry.class).run((context) -> {
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThat(registry.find("redkit.doctor.findings").gauges())
				.extracting((gauge) -> gauge.getId().getTag("status"))
				.containsExactlyInAnyOrder("ok", "note", "risk", "not-checked");
			// the first scrape starts an examination and reads NaN: nothing examined yet
			await().atMost(Duration.ofSeconds(5))
				.untilAsserted(
						() -> assertThat(registry.get("redkit.doctor.findings").tag("status", "risk").gauge().value())
							.isEqualTo(1.0));
			assertThat(registry.get("redkit.doctor.findings").tag("status", "not-checked").gauge().value()).isZero();
		});
	}

	@Test
	void aGaugeReadOfAServerThatDoesNotAnswerReturnsAtOnce() {
		int port = RedisServers.unusedPort();
		this.runner.withBean(SimpleMeterRegistry.class)
			.withPropertyValues("spring.data.redis.port=" + port, "redkit.doctor.timeout=1s")
			.run((context) -> {
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				long start = System.nanoTime();
				for (int i = 0; i < 20; i++) {
					registry.get("redkit.doctor.findings").tag("status", "not-checked").gauge().value();
				}
				assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(500));
				await().atMost(Duration.ofSeconds(5))
					.untilAsserted(() -> assertThat(
							registry.get("redkit.doctor.findings").tag("status", "not-checked").gauge().value())
						.isPositive());
			});
	}

	@Test
	void theEndpointHasADoctorSection() {
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=redkit").run((context) -> {
			Object section = context.getBean(RedkitEndpoint.class).section("doctor", null, null);
			assertThat(section).isInstanceOf(DoctorReport.class);
			assertThat(((DoctorReport) section).risks()).isNotEmpty();
			assertThat(context.getBean(RedkitEndpoint.class).summary().get("sections"))
				.asInstanceOf(InstanceOfAssertFactories.LIST)
				.contains("doctor");
		});
	}

	@Test
	void canBeTurnedOffAndReplaced() {
		this.runner.withPropertyValues("redkit.doctor.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(ServerDoctor.class)
				.doesNotHaveBean(DoctorHealthIndicator.class));
		this.runner.withBean(ServerDoctor.class, () -> () -> new DoctorReport("custom", List.of()))
			.run((context) -> assertThat(context.getBean(ServerDoctor.class).examine().server()).isEqualTo("custom"));
	}

	@Test
	void aTimeoutThatIsNotPositiveFailsNamingTheProperty() {
		this.runner.withPropertyValues("redkit.doctor.timeout=0s")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("redkit.doctor.timeout"));
	}

	private static DoctorFinding finding(DoctorReport report, String check) {
		return report.findings().stream().filter((finding) -> finding.check().equals(check)).findFirst().orElseThrow();
	}

}
