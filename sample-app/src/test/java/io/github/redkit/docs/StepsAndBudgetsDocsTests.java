package io.github.redkit.docs;

import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

import io.github.redkit.budget.Budgets;
import io.github.redkit.budget.Reservation;
import io.github.redkit.budget.SpendResult;
import io.github.redkit.idempotency.IdempotencyKeyReusedException;
import io.github.redkit.idempotency.IdempotentStep;
import io.github.redkit.idempotency.IdempotentSteps;
import io.github.redkit.idempotency.StepOutOfOrderException;
import io.github.redkit.test.boot.RedkitTest;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.stereotype.Service;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The snippets of {@code docs/idempotent-steps.md} and {@code docs/budgets.md}: their
 * configuration, the annotated steps, an HTTP idempotency key, the budget calls and the
 * auction end to end.
 */
@SpringBootTest(classes = StepsAndBudgetsDocsTests.Application.class,
		webEnvironment = SpringBootTest.WebEnvironment.NONE,
		properties = "spring.config.location=classpath:docs/idempotent-steps.yml")
@RedkitTest
class StepsAndBudgetsDocsTests {

	@Autowired
	Notices notices;

	@Autowired
	OrderController orders;

	@Autowired
	Auctions auctions;

	@Autowired
	IdempotentSteps steps;

	@Autowired
	Budgets budgets;

	@Test
	void aNoticeRunsOnceAfterItsBid() {
		this.budgets.create("campaign-7", 1_000);
		NoticeEvent event = new NoticeEvent("a-1", "campaign-7", 300);
		assertThatExceptionOfType(StepOutOfOrderException.class).isThrownBy(() -> this.notices.onNotice(event));
		this.steps.claim("a-1", "bid", Set.of(), null);
		this.steps.complete("a-1", "bid", null);
		assertThat(this.notices.onNotice(event)).isEqualTo(new SpendResult(true, 700));
		assertThat(this.notices.onNotice(event)).as("the first result").isEqualTo(new SpendResult(true, 700));
		assertThat(this.budgets.remaining("campaign-7")).isEqualTo(700);
	}

	@Test
	void aRetriedPostReturnsTheStoredConfirmation() {
		Confirmation first = this.orders.create("key-1", new Order("book"));
		assertThat(this.orders.create("key-1", new Order("book"))).isEqualTo(first);
		assertThatExceptionOfType(IdempotencyKeyReusedException.class)
			.isThrownBy(() -> this.orders.create("key-1", new Order("pen")));
	}

	@Test
	void theBudgetCalls() {
		// tag::budgets[]
		// false if it exists (create(id, amount, true) replaces)
		budgets.create("campaign-42", 100_000);
		// applied only if the balance stays >= 0, never partially
		SpendResult r = budgets.spend("campaign-42", 250);
		// idempotent: a repeat returns the first result
		budgets.spend("campaign-42", 250, "impression-9f1");
		// idempotent too (ids kept apart from spends)
		budgets.refund("campaign-42", 250, "refund-9f1");
		Optional<Reservation> bid = budgets.reserve("campaign-42", 700, Duration.ofMinutes(5));
		// a retry returns the same reservation
		budgets.reserve("campaign-42", 700, Duration.ofMinutes(5), "bid-9f1");
		// spend 420 of the 700, return the rest
		budgets.commit(bid.get(), 420);
		// or return everything
		budgets.release(bid.get());
		long left = budgets.remaining("campaign-42");
		// end::budgets[]
		assertThat(r).isEqualTo(new SpendResult(true, 99_750));
		assertThat(left).isEqualTo(100_000 - 250 - 250 + 250 - 420 - 700);
	}

	@Test
	void anAuctionEndsInANoticeOrATimeout() {
		this.budgets.create("campaign-9", 1_000, true);
		assertThat(this.auctions.bid("x", 400)).isNotNull();
		assertThat(this.auctions.notice("x", 250)).isEqualTo(new SpendResult(true, 750));
		assertThatExceptionOfType(StepOutOfOrderException.class).isThrownBy(() -> this.auctions.timeout("x"));
		assertThat(this.auctions.bid("y", 400)).isNotNull();
		this.auctions.timeout("y");
		assertThat(this.budgets.remaining("campaign-9")).isEqualTo(750);
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import({ Notices.class, OrderController.class, Auctions.class })
	static class Application {

	}

}

record NoticeEvent(String auctionId, String campaign, long price) {
}

record Order(String item) {
}

record Confirmation(String id, String item) {
}

@Service
class Notices {

	private final Budgets budgets;

	Notices(Budgets budgets) {
		this.budgets = budgets;
	}

	// tag::step[]
	@IdempotentStep(operation = "#event.auctionId", step = "notice", after = "bid", ttl = "48h")
	public SpendResult onNotice(NoticeEvent event) {
		return budgets.spend(event.campaign(), event.price());
	}
	// end::step[]

}

@RestController
class OrderController {

	// tag::http-key[]
	@PostMapping("/orders")
	@IdempotentStep(operation = "#key", step = "create-order", fingerprint = "#order")
	public Confirmation create(@RequestHeader("Idempotency-Key") String key, @RequestBody Order order) {
		return new Confirmation(UUID.randomUUID().toString(), order.item());
	}
	// end::http-key[]

}

@Service
class Auctions {

	private final Budgets budgets;

	private final IdempotentSteps steps;

	private final String campaign = "campaign-9";

	Auctions(Budgets budgets, IdempotentSteps steps) {
		this.budgets = budgets;
		this.steps = steps;
	}

	// tag::auction[]
	@IdempotentStep(operation = "'auction:' + #auction", step = "bid")
	public Reservation bid(String auction, long amount) {
		return budgets.reserve(campaign, amount, Duration.ofMinutes(10)).orElse(null);
	}

	@IdempotentStep(operation = "'auction:' + #auction", step = "notice", after = "bid")
	public SpendResult notice(String auction, long price) {
		Reservation reservation = steps.result("auction:" + auction, "bid", Reservation.class);
		return budgets.commit(reservation, price);
	}

	@IdempotentStep(operation = "'auction:' + #auction", step = "timeout", after = "bid")
	public void timeout(String auction) {
		budgets.release(steps.result("auction:" + auction, "bid", Reservation.class));
	}
	// end::auction[]

}
