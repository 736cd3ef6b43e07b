package io.github.redkit.autoconfigure.doctor;

import io.github.redkit.actuate.RedkitEndpoint;
import io.github.redkit.autoconfigure.DurationChecks;
import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.ServerNeeds;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.doctor.ServerDoctor;
import io.github.redkit.doctor.actuate.DoctorEndpointSection;
import io.github.redkit.doctor.actuate.DoctorHealthIndicator;
import io.github.redkit.autoconfigure.GaugeReads;
import io.github.redkit.autoconfigure.RedkitProperties;
import io.github.redkit.doctor.internal.DoctorGauges;
import io.github.redkit.doctor.internal.DoctorStartupCheck;
import io.github.redkit.doctor.internal.RedisServerDoctor;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The server doctor: checks at start-up, in health and on the {@code redkit} endpoint
 * that the Redis server's settings keep what the capabilities in use need, as each
 * declared with a {@link ServerNeeds} bean.
 */
@AutoConfiguration(after = RedkitAutoConfiguration.class)
@ConditionalOnBean(RedisScriptRunner.class)
@ConditionalOnBooleanProperty(name = "redkit.doctor.enabled", matchIfMissing = true)
@EnableConfigurationProperties(DoctorProperties.class)
public final class DoctorAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	ServerDoctor redkitServerDoctor(RedisScriptRunner runner, ObjectProvider<ServerNeeds> needs,
			DoctorProperties properties) {
		DurationChecks.positive(properties.getTimeout(), "redkit.doctor.timeout");
		return new RedisServerDoctor(runner.connectionFactory(), needs.orderedStream().toList(),
				properties.getTimeout());
	}

	@Bean
	@ConditionalOnMissingBean
	DoctorStartupCheck redkitDoctorStartupCheck(ServerDoctor doctor, DoctorProperties properties) {
		return new DoctorStartupCheck(doctor, properties.getOnRisk() == DoctorProperties.OnRisk.FAIL);
	}

	@Bean
	@ConditionalOnMissingBean
	DoctorGauges redkitDoctorGauges(ServerDoctor doctor, RedkitMetrics metrics, RedkitProperties redkit) {
		DoctorGauges gauges = new DoctorGauges(doctor, GaugeReads.of(redkit, "redkit-doctor-gauges"));
		gauges.bindTo(metrics);
		return gauges;
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(HealthIndicator.class)
	static final class DoctorHealthConfiguration {

		@Bean
		@ConditionalOnMissingBean(name = "redkitServerHealthIndicator")
		DoctorHealthIndicator redkitServerHealthIndicator(ServerDoctor doctor) {
			return new DoctorHealthIndicator(doctor);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
	@ConditionalOnAvailableEndpoint(RedkitEndpoint.class)
	static final class DoctorEndpointConfiguration {

		@Bean
		@ConditionalOnMissingBean
		DoctorEndpointSection redkitDoctorEndpointSection(ServerDoctor doctor) {
			return new DoctorEndpointSection(doctor);
		}

	}

}
