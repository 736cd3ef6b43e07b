package io.github.redkit.pubsub;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.autoconfigure.pubsub.RedkitPubSubAutoConfiguration;
import io.github.redkit.testsupport.RedisServer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * An application with a control-state listener, for the pub/sub tests.
 */
final class PubSubTestApp {

	private PubSubTestApp() {
	}

	static ApplicationContextRunner runner(RedisServer server, String group) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, JacksonAutoConfiguration.class,
					RedkitAutoConfiguration.class, RedkitPubSubAutoConfiguration.class))
			.withUserConfiguration(Config.class)
			.withPropertyValues(server.springProperties())
			.withPropertyValues("test.group=" + group, "redkit.pubsub.control.subscriber-id=worker-" + group);
	}

	@Configuration(proxyBeanMethods = false)
	static class Config {

		@Bean
		Recorder recorder(Environment environment) {
			return new Recorder(environment.getRequiredProperty("test.group"));
		}

		@Bean
		MeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

	}

	/**
	 * Records every snapshot it is given.
	 */
	static class Recorder implements ControlStateListener {

		private final String group;

		final List<ControlSnapshot> seen = new CopyOnWriteArrayList<>();

		Recorder(String group) {
			this.group = group;
		}

		@Override
		public String group() {
			return this.group;
		}

		@Override
		public void onControlState(ControlSnapshot snapshot) {
			this.seen.add(snapshot);
		}

		ControlSnapshot last() {
			return this.seen.isEmpty() ? null : this.seen.get(this.seen.size() - 1);
		}

	}

}
