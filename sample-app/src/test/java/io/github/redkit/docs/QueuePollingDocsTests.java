package io.github.redkit.docs;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import io.github.redkit.queue.DeadLetter;
import io.github.redkit.queue.QueueMessage;
import io.github.redkit.queue.QueueStats;
import io.github.redkit.queue.QueueTemplate;
import io.github.redkit.test.boot.RedkitTest;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The polling code of {@code docs/queues.md}: no listener here, the test takes and
 * settles each message itself.
 */
@SpringBootTest(classes = QueuePollingDocsTests.Application.class, webEnvironment = SpringBootTest.WebEnvironment.NONE,
		properties = { "spring.config.location=classpath:docs/queues.yml", "redkit.queue.queues.emails.max-attempts=1",
				"redkit.key-prefix=docs-queue-polling" })
@RedkitTest
class QueuePollingDocsTests {

	@Autowired
	QueueTemplate queues;

	private final List<String> handled = new java.util.ArrayList<>();

	@Test
	void codeThatPollsSettlesEachMessage() {
		for (int i = 0; i < 5; i++) {
			this.queues.send("emails", new Email("u" + i + "@example.com", "Welcome"));
		}
		this.queues.send("emails", new Email("broken", "Welcome"));
		poll();
		assertThat(this.handled).containsExactly("u0@example.com");
		QueueMessage<Email> message = this.queues.receive("emails", Email.class).orElseThrow();
		keep(message);
		assertThat(next(message))
			.hasValueSatisfying((next) -> assertThat(next.payload().to()).isEqualTo("u2@example.com"));
		batches(List.of());
		assertThat(this.handled).hasSize(1);
		DeadLetter dead = this.queues.deadLetters("emails", 50).get(0);
		QueueStats stats = inspect(dead.id());
		assertThat(stats.deadLetters()).isZero();
	}

	void poll() {
		// tag::receive[]
		queues.receive("emails", Email.class).ifPresent((message) -> {
			try {
				handle(message.payload());
				queues.ack(message);
			}
			catch (Exception ex) {
				// RETRIED, DEAD_LETTERED, DROPPED or NOT_OWNED
				queues.fail(message, ex);
			}
		});
		// end::receive[]
	}

	void keep(QueueMessage<Email> message) {
		// tag::extend[]
		// long work keeps its message: extend it well within the visibility timeout
		// (false = lost: it was taken again)
		if (!queues.extend(message, Duration.ofSeconds(30))) {
			throw new IllegalStateException("stop: another consumer has it");
		}
		// end::extend[]
	}

	Optional<QueueMessage<Email>> next(QueueMessage<Email> message) {
		// tag::ack-and-receive[]
		// a tight polling loop acknowledges one message and takes the next in one round
		// trip:
		Optional<QueueMessage<Email>> next = queues.ackAndReceive(message, Email.class);
		// end::ack-and-receive[]
		return next;
	}

	void batches(List<QueueMessage<Email>> handled) {
		// tag::batches[]
		// or in batches: up to 50 messages per round trip, each acknowledged (or failed)
		// on its own
		List<QueueMessage<Email>> batch = queues.receive("emails", Email.class, 50);
		List<QueueMessage<Email>> more = queues.ackAndReceive(handled, "emails", Email.class, 50);
		// end::batches[]
		batch.forEach((message) -> {
			if (message.payload().to().equals("broken")) {
				this.queues.fail(message, new IllegalArgumentException("no such address"));
			}
			else {
				this.queues.ack(message);
			}
		});
		assertThat(more).isEmpty();
	}

	QueueStats inspect(String id) {
		// tag::inspect[]
		// id, payload JSON, deliveries, last error, time
		queues.deadLetters("emails", 50);
		// or requeueDeadLetters("emails")
		queues.requeueDeadLetter("emails", id);
		// ready, delayed, in-flight, dead letters, oldest age
		queues.stats("emails");
		// end::inspect[]
		return this.queues.stats("emails");
	}

	private void handle(Email email) {
		if (email.to().equals("broken")) {
			throw new IllegalArgumentException("no such address");
		}
		this.handled.add(email.to());
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class Application {

	}

}
