package io.github.redkit.docs;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;

import io.github.redkit.pubsub.ChannelPublisher;
import io.github.redkit.pubsub.ControlSnapshot;
import io.github.redkit.pubsub.ControlState;
import io.github.redkit.pubsub.ControlStateListener;
import io.github.redkit.test.boot.RedkitTest;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.data.redis.annotation.RedisListener;
import org.springframework.stereotype.Component;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The snippets of {@code docs/pubsub-control.md}: a JSON message to a Spring Data Redis
 * listener, and control state set by a controller and applied by a daemon.
 */
@SpringBootTest(classes = PubSubDocsTests.Application.class, webEnvironment = SpringBootTest.WebEnvironment.NONE,
		properties = "spring.config.location=classpath:docs/pubsub-control.yml")
@RedkitTest
class PubSubDocsTests {

	@Autowired
	ChannelPublisher channelPublisher;

	@Autowired
	ControlState controlState;

	@Autowired
	Orders orders;

	@Autowired
	Limiter limiter;

	@Autowired
	Shutdown shutdown;

	@Test
	void aPublishedOrderReachesTheListenerAsJson() {
		// published until the listener's subscription is in place
		awaitTrue(() -> {
			publish();
			return !this.orders.placed().isEmpty();
		});
		assertThat(this.orders.placed()).first().isEqualTo(new OrderPlaced("o-1", 1999));
	}

	long publish() {
		// tag::publish[]
		// JSON, Jackson 3
		long receivers = channelPublisher.publish("orders", new OrderPlaced("o-1", 1999));
		// end::publish[]
		return receivers;
	}

	@Test
	void everyDaemonAppliesAndAcknowledgesTheControlState() {
		// tag::controller[]
		long version = controlState.set("workers", Map.of("throttle", "10", "run", "false"));
		// subscriber id -> version applied
		Map<String, Long> applied = controlState.acknowledgements("workers");
		long behind = applied.values().stream().filter((v) -> v < version).count();
		// end::controller[]
		assertThat(behind).isLessThanOrEqualTo(1);
		awaitTrue(() -> this.limiter.rate() == 10 && this.shutdown.initiated());
		awaitTrue(() -> this.controlState.acknowledgements("workers").getOrDefault("worker-1", 0L) == version);
	}

	private static void awaitTrue(BooleanSupplier condition) {
		long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
		while (!condition.getAsBoolean()) {
			assertThat(System.nanoTime()).as("in time").isLessThan(deadline);
			Thread.onSpinWait();
		}
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import({ Orders.class, Throttle.class, Limiter.class, Shutdown.class })
	static class Application {

	}

}

// tag::order[]
record OrderPlaced(String id, long amountCents) {
}
// end::order[]

// tag::listener[]
@Component
class Orders {

	private final List<OrderPlaced> placed = new CopyOnWriteArrayList<>();

	private final JsonMapper jsonMapper;

	Orders(JsonMapper jsonMapper) {
		this.jsonMapper = jsonMapper;
	}

	// Spring Data Redis 4.1, nothing Redkit-specific
	@RedisListener(topic = "orders")
	public void onOrder(String json) {
		OrderPlaced order = jsonMapper.readValue(json, OrderPlaced.class);
		placed.add(order);
	}

	List<OrderPlaced> placed() {
		return this.placed;
	}

}
// end::listener[]

@Component
class Limiter {

	private volatile long rate;

	void setRate(long rate) {
		this.rate = rate;
	}

	long rate() {
		return this.rate;
	}

}

@Component
class Shutdown {

	private volatile boolean initiated;

	void initiate() {
		this.initiated = true;
	}

	boolean initiated() {
		return this.initiated;
	}

}

// tag::daemon[]
// each daemon: a bean
@Component
class Throttle implements ControlStateListener {

	private final Limiter limiter;

	private final Shutdown shutdown;

	Throttle(Limiter limiter, Shutdown shutdown) {
		this.limiter = limiter;
		this.shutdown = shutdown;
	}

	@Override
	public String group() {
		return "workers";
	}

	@Override
	public void onControlState(ControlSnapshot state) {
		limiter.setRate(state.getLong("throttle", 100));
		if (!state.getBoolean("run", true)) {
			shutdown.initiate();
		}
	}

}
// end::daemon[]
