package io.github.redkit.idempotency;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.github.redkit.budget.Budgets;
import io.github.redkit.budget.Reservation;
import io.github.redkit.budget.SpendResult;

/**
 * The seed's auction: {@code bid} reserves the bid, {@code notice} commits the price,
 * {@code timeout} releases the reservation; every message may come twice or out of order.
 */
public class AuctionService {

	final AtomicInteger bidRuns = new AtomicInteger();

	final AtomicLong committed = new AtomicLong();

	private final Budgets budgets;

	private final IdempotentSteps steps;

	volatile String budget;

	public AuctionService(Budgets budgets, IdempotentSteps steps) {
		this.budgets = budgets;
		this.steps = steps;
	}

	// the bean is a class-based proxy: tests reach the state through methods

	public void useBudget(String budget) {
		this.budget = budget;
		this.committed.set(0);
		this.bidRuns.set(0);
	}

	public String budget() {
		return this.budget;
	}

	public long committed() {
		return this.committed.get();
	}

	public int bidRuns() {
		return this.bidRuns.get();
	}

	@IdempotentStep(operation = "'auction:' + #auction", step = "bid")
	public Reservation bid(String auction, long amount) {
		this.bidRuns.incrementAndGet();
		return this.budgets.reserve(this.budget, amount, Duration.ofMinutes(10)).orElse(null);
	}

	@IdempotentStep(operation = "'auction:' + #auction", step = "notice", after = "bid")
	public SpendResult notice(String auction, long price) {
		Reservation reservation = this.steps.result("auction:" + auction, "bid", Reservation.class);
		if (reservation == null) {
			return new SpendResult(false, this.budgets.remaining(this.budget));
		}
		SpendResult result = this.budgets.commit(reservation, price);
		if (result.applied()) {
			this.committed.addAndGet(price);
		}
		return result;
	}

	@IdempotentStep(operation = "'auction:' + #auction", step = "timeout", after = "bid")
	public void timeout(String auction) {
		Reservation reservation = this.steps.result("auction:" + auction, "bid", Reservation.class);
		if (reservation != null) {
			this.budgets.release(reservation);
		}
	}

}
