package io.github.redkit.docs;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.redkit.queue.QueueListener;
import io.github.redkit.queue.QueueMessage;
import io.github.redkit.test.boot.RedkitTest;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.stereotype.Component;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The listener of a stream another application writes, of {@code docs/queues.md}, on its
 * configuration: the entry is written with a plain {@code XADD}.
 */
@SpringBootTest(classes = ExistingStreamDocsTests.Application.class,
		webEnvironment = SpringBootTest.WebEnvironment.NONE,
		properties = { "spring.config.location=classpath:docs/queues-existing-stream.yml",
				"redkit.key-prefix=docs-existing-stream" })
@RedkitTest
class ExistingStreamDocsTests {

	@Autowired
	StringRedisTemplate redis;

	@Autowired
	Refunds refunds;

	@Test
	void anEntryTheOtherApplicationAddsIsHandled() {
		String id = this.redis.opsForStream()
			.add("billing:{payments}:events",
					Map.of("payload", "{\"order\":\"A-1\",\"cents\":1250}", "source", "billing"))
			.getValue();
		long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
		while (this.refunds.done().isEmpty() && System.nanoTime() < deadline) {
			Thread.onSpinWait();
		}
		assertThat(this.refunds.done()).containsExactly(id + " A-1 1250 billing");
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import({ PaymentEvents.class, Refunds.class })
	static class Application {

	}

}

// tag::listener[]
record Payment(String order, long cents) {
}

@Component
class PaymentEvents {

	private final Refunds refunds;

	PaymentEvents(Refunds refunds) {
		this.refunds = refunds;
	}

	// or (Payment payment), or (Map<String, String> fields) without payload-field
	@QueueListener(queue = "payments")
	void on(QueueMessage<Payment> message) {
		// id = the entry's id, headers = its fields; return = XACK (never XDEL);
		// throw = retry with backoff, then dead letter
		Payment payment = message.payload();
		refunds.record(
				message.id() + " " + payment.order() + " " + payment.cents() + " " + message.headers().get("source"));
	}

}
// end::listener[]

@Component
class Refunds {

	private final List<String> done = new CopyOnWriteArrayList<>();

	void record(String line) {
		this.done.add(line);
	}

	List<String> done() {
		return this.done;
	}

}
