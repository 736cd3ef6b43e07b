package io.github.redkit.resilience4j;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import io.github.redkit.testsupport.RedisServers;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The application the tests run: Resilience4j's Boot 4 starter, its aspects and meters,
 * and Redkit, configured by {@code docs/resilience4j.yml}, over a real Redis.
 */
@Configuration(proxyBeanMethods = false)
@EnableAutoConfiguration
class Resilience4jTestApplication {

	/** One gate for every context of the JVM: the instances of one application. */
	static final ReportService.Gate GATE = new ReportService.Gate();

	@Bean
	PartnerClient partnerClient() {
		return new PartnerClient();
	}

	@Bean
	ReportService reportService() {
		return new ReportService(GATE);
	}

	@Bean
	MeterRegistry meterRegistry() {
		return new SimpleMeterRegistry();
	}

	/**
	 * The command line of one instance (all instances of an application share the key
	 * prefix).
	 * @param keyPrefix the key prefix
	 * @return the arguments, as {@code --name=value}
	 */
	static String[] arguments(String keyPrefix) {
		List<String> arguments = new ArrayList<>();
		for (String property : RedisServers.standalone().springProperties()) {
			arguments.add("--" + property);
		}
		arguments.add("--spring.config.location=classpath:docs/resilience4j.yml");
		arguments.add("--redkit.key-prefix=" + keyPrefix);
		return arguments.toArray(String[]::new);
	}

	static String newKeyPrefix() {
		return "r4j-" + UUID.randomUUID();
	}

}
