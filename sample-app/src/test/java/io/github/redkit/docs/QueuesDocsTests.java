package io.github.redkit.docs;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.redkit.queue.QueueListener;
import io.github.redkit.queue.QueueTemplate;
import io.github.redkit.test.boot.RedkitTest;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.stereotype.Component;
import org.springframework.stereotype.Service;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sender and the listener of {@code docs/queues.md}, on its configuration.
 */
@SpringBootTest(classes = QueuesDocsTests.Application.class, webEnvironment = SpringBootTest.WebEnvironment.NONE,
		properties = { "spring.config.location=classpath:docs/queues.yml", "redkit.key-prefix=docs-queues" })
@RedkitTest
class QueuesDocsTests {

	@Autowired
	Mailer mailer;

	@Autowired
	Mails sender;

	@Autowired
	QueueTemplate queues;

	@Test
	void theWelcomeIsSentNowAndTheFollowUpInThreeDays() {
		this.mailer.signUp("ann@example.com");
		long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
		while (this.sender.sent().isEmpty() && System.nanoTime() < deadline) {
			Thread.onSpinWait();
		}
		assertThat(this.sender.sent()).containsExactly(new Email("ann@example.com", "Welcome"));
		assertThat(this.queues.stats("emails").delayed()).isOne();
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import({ Mailer.class, EmailSender.class, Mails.class })
	static class Application {

	}

}

// tag::sender[]
record Email(String to, String subject) {
}

@Service
class Mailer {

	private final QueueTemplate queues;

	Mailer(QueueTemplate queues) {
		this.queues = queues;
	}

	void signUp(String to) {
		queues.send("emails", new Email(to, "Welcome"));
		queues.sendDelayed("emails", new Email(to, "How is it going?"), Duration.ofDays(3));
	}

}
// end::sender[]

// tag::listener[]
@Component
class EmailSender {

	private final Mails mails;

	EmailSender(Mails mails) {
		this.mails = mails;
	}

	// "${mail.concurrency}" works too
	@QueueListener(queue = "emails", concurrency = "4")
	void send(Email email) {
		// return = ack; throw = retry with backoff, then dead letter;
		// runs as long as it needs: its message stays invisible meanwhile
		mails.deliver(email);
	}

}
// end::listener[]

@Component
class Mails {

	private final List<Email> sent = new CopyOnWriteArrayList<>();

	void deliver(Email email) {
		this.sent.add(email);
	}

	List<Email> sent() {
		return this.sent;
	}

}
