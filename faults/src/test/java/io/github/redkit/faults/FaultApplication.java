package io.github.redkit.faults;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * A user application: Redkit's auto-configuration, configured only through properties.
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration
class FaultApplication {

	@Bean
	MeterRegistry meterRegistry() {
		return new SimpleMeterRegistry();
	}

}
