package io.github.redkit.sample.ads;

import java.time.Duration;

import io.github.redkit.budget.Budgets;
import io.github.redkit.budget.Reservation;
import io.github.redkit.budget.SpendResult;
import io.github.redkit.idempotency.IdempotentStep;
import io.github.redkit.idempotency.IdempotentSteps;
import org.jspecify.annotations.Nullable;

import org.springframework.stereotype.Service;

/**
 * An auction is bid → notice | timeout. Each step runs once per auction whatever the
 * broker delivers twice or out of order: the bid reserves the price cap, the notice
 * commits the clearing price (the rest goes back), the timeout releases everything.
 */
@Service
public class Auctions {

	private final Budgets budgets;

	private final IdempotentSteps steps;

	public Auctions(Budgets budgets, IdempotentSteps steps) {
		this.budgets = budgets;
		this.steps = steps;
	}

	static String operation(String campaign, String auction) {
		return "auction:" + campaign + ":" + auction;
	}

	/**
	 * Reserves the bid.
	 * @return the reservation, {@code null} when the budget cannot cover it
	 */
	@IdempotentStep(operation = "'auction:' + #campaign + ':' + #auction", step = "bid")
	public @Nullable Reservation bid(String campaign, String auction, long amount) {
		return this.budgets.reserve(campaign, amount, Duration.ofMinutes(10)).orElse(null);
	}

	@IdempotentStep(operation = "'auction:' + #campaign + ':' + #auction", step = "notice", after = "bid")
	public SpendResult notice(String campaign, String auction, long price) {
		Reservation reservation = reservation(campaign, auction);
		if (reservation == null) {
			return new SpendResult(false, this.budgets.remaining(campaign));
		}
		// never more than was reserved: the bid was the cap
		return this.budgets.commit(reservation, Math.min(price, reservation.amount()));
	}

	@IdempotentStep(operation = "'auction:' + #campaign + ':' + #auction", step = "timeout", after = "bid")
	public void timeout(String campaign, String auction) {
		Reservation reservation = reservation(campaign, auction);
		if (reservation != null) {
			this.budgets.release(reservation);
		}
	}

	public @Nullable Reservation reservation(String campaign, String auction) {
		return this.steps.result(operation(campaign, auction), "bid", Reservation.class);
	}

	public java.util.Set<String> recordedSteps(String campaign, String auction) {
		return this.steps.recordedSteps(operation(campaign, auction));
	}

}
