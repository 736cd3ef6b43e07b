package io.github.redkit.autoconfigure.pubsub;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.pubsub.ChannelPublisher;
import io.github.redkit.pubsub.ControlSnapshot;
import io.github.redkit.pubsub.ControlStateListener;
import io.github.redkit.pubsub.internal.ControlStateHealthIndicator;
import io.github.redkit.pubsub.internal.ControlStateSubscription;
import io.github.redkit.pubsub.internal.RedisControlState;
import io.github.redkit.testsupport.RedisServers;
import org.junit.jupiter.api.Test;
import static org.assertj.core.api.Assertions.assertThat;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

class RedkitPubSubAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, JacksonAutoConfiguration.class,
				RedkitAutoConfiguration.class, RedkitPubSubAutoConfiguration.class))
		.withPropertyValues(RedisServers.standalone().springProperties());

	@Test
	void publisherAndControlStateWithoutASubscriptionWhenNothingListens() {
		this.runner.run((context) -> assertThat(context).hasSingleBean(ChannelPublisher.class)
			.hasSingleBean(RedisControlState.class)
			.doesNotHaveBean(ControlStateSubscription.class)
			.doesNotHaveBean(ControlStateHealthIndicator.class));
	}

	@Test
	void aListenerBeanBringsTheSubscriptionAndItsHealth() {
		this.runner.withUserConfiguration(Listening.class)
			.withPropertyValues("redkit.key-prefix=shop")
			.run((context) -> {
				assertThat(context).hasSingleBean(ControlStateSubscription.class)
					.hasSingleBean(ControlStateHealthIndicator.class);
				assertThat(context.getBean(RedisControlState.class).channel()).isEqualTo("shop:pubsub:control");
			});
	}

	@Test
	void canBeTurnedOff() {
		this.runner.withUserConfiguration(Listening.class)
			.withPropertyValues("redkit.pubsub.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(ChannelPublisher.class)
				.doesNotHaveBean(ControlStateSubscription.class));
	}

	@Test
	void backsOffWhenTheUserDefinesAPublisher() {
		this.runner.withUserConfiguration(OwnPublisher.class)
			.run((context) -> assertThat(context).getBean(ChannelPublisher.class)
				.isSameAs(context.getBean("ownPublisher")));
	}

	@Test
	void aZeroAcknowledgementTtlFailsStartUpNamingTheProperty() {
		this.runner.withPropertyValues("redkit.pubsub.control.ack-ttl=0s")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("redkit.pubsub.control.ack-ttl"));
	}

	@Configuration(proxyBeanMethods = false)
	static class Listening {

		@Bean
		ControlStateListener workers() {
			return new ControlStateListener() {

				@Override
				public String group() {
					return "workers";
				}

				@Override
				public void onControlState(ControlSnapshot snapshot) {
				}

			};
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class OwnPublisher {

		@Bean
		ChannelPublisher ownPublisher() {
			return (channel, payload) -> 0;
		}

	}

}
