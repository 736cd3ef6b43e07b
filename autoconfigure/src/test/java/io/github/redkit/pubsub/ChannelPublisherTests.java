package io.github.redkit.pubsub;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.autoconfigure.pubsub.RedkitPubSubAutoConfiguration;
import io.github.redkit.testsupport.Exercises;
import io.github.redkit.testsupport.RedisTopologies;
import io.github.redkit.testsupport.RedisTopology;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.annotation.RedisListener;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

/**
 * {@link ChannelPublisher} to a Spring Data Redis {@code @RedisListener}, as Spring Boot
 * auto-configures it.
 */
@ParameterizedClass
@RedisTopologies(exercises = Exercises.BOTH)
class ChannelPublisherTests {

	static final String CHANNEL = "redkit-test-orders";

	@Parameter
	RedisTopology topology;

	@Test
	void aTypedPayloadMakesAJsonRoundTripToARedisListener() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, JacksonAutoConfiguration.class,
					RedkitAutoConfiguration.class, RedkitPubSubAutoConfiguration.class))
			.withUserConfiguration(Config.class)
			.withPropertyValues(this.topology.springProperties())
			.run((context) -> {
				assertThat(context).hasSingleBean(RedisMessageListenerContainer.class);
				ChannelPublisher publisher = context.getBean(ChannelPublisher.class);
				Orders orders = context.getBean(Orders.class);
				Order order = new Order(UUID.randomUUID().toString(), 3, List.of("apple", "pear"));
				// published until the listener's subscription is in place
				await().atMost(Duration.ofSeconds(10)).until(() -> {
					publisher.publish(CHANNEL, order);
					return orders.received.contains(order);
				});
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				if (!this.topology.server().isCluster()) {
					// a cluster node counts only its own subscribers
					assertThat(publisher.publish(CHANNEL, order)).isEqualTo(1);
					assertThat(registry.get("redkit.pubsub.published").tag("outcome", "delivered").counter().count())
						.isPositive();
				}
				assertThat(publisher.publish(CHANNEL + "-nobody", order)).isZero();
				assertThat(registry.get("redkit.pubsub.published").tag("outcome", "unheard").counter().count())
					.isPositive();
			});
	}

	record Order(String id, int quantity, List<String> items) {
	}

	@Configuration(proxyBeanMethods = false)
	static class Config {

		@Bean
		Orders orders(JsonMapper mapper) {
			return new Orders(mapper);
		}

		@Bean
		MeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

	}

	static class Orders {

		final List<Order> received = new CopyOnWriteArrayList<>();

		private final JsonMapper mapper;

		Orders(JsonMapper mapper) {
			this.mapper = mapper;
		}

		@RedisListener(topic = CHANNEL)
		public void onOrder(String json) {
			this.received.add(this.mapper.readValue(json, Order.class));
		}

	}

}
