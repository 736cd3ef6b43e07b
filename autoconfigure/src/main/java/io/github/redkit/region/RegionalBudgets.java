package io.github.redkit.region;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;

import io.github.redkit.budget.Reservation;

/**
 * Budgets of several regions: every region decides on its own Redis, in one round trip,
 * against what it sees (its own changes and what the others have shipped so far), and
 * ships each change to the others like a {@link RegionalCounters} increment. A budget is
 * either
 * <ul>
 * <li>{@linkplain #create shared}: every region spends from the whole remaining it sees.
 * While regions cannot see each other they may together spend more than the budget: by at
 * most what the other regions spend during the replication lag (see docs/multi-region.md
 * for the measured bound); or</li>
 * <li>{@linkplain #allot allotted}: every region owns a share and spends only from it, so
 * the regions together never spend more than the budget, partitioned or not. A region
 * running low {@linkplain #borrow borrows} from the others' unspent shares.</li>
 * </ul>
 * <p>
 * Amounts are between 1 and {@link io.github.redkit.budget.Budgets#MAX_AMOUNT} (an
 * {@code IllegalArgumentException} otherwise; a refund that would take the balance or
 * this region's slot past it throws a
 * {@link io.github.redkit.budget.BudgetOverflowException}). Every change throws a
 * {@link RegionRecoveringException}, and changes nothing, while this region's Redis does
 * not hold the region's own slot (a new Redis, or one that lost its data, before the
 * replicators took the slot back from the peers); reads answer meanwhile.
 */
public interface RegionalBudgets {

	/**
	 * Grants a budget from this region, unless this region already sees it. Create a
	 * budget in one region: two regions creating the same budget before either has seen
	 * the other's creation both grant it.
	 * @param name the budget name (any text; escaped in keys)
	 * @param amount the amount granted, positive
	 * @return {@code true} when this call granted it
	 */
	boolean create(String name, long amount);

	/**
	 * Creates an allotted budget from this region, unless this region already sees it:
	 * this region grants the sum of the shares and gives each region its share, in one
	 * change that the others receive by replication.
	 * @param name the budget name (any text; escaped in keys)
	 * @param shares each region's share, by region name (this region's included, the
	 * others all peers); together positive
	 * @return {@code true} when this call created it
	 */
	boolean allot(String name, Map<String, Long> shares);

	/**
	 * Reads what is left as this region sees it.
	 * @param name the budget name
	 * @return what is left; below zero when regions together overspent it
	 */
	long remaining(String name);

	/**
	 * Reads what this region may spend: its share of an allotted budget (exact for what
	 * this region did; what others gave it counts once it arrived), or what is left of a
	 * shared one as this region sees it.
	 * @param name the budget name
	 * @return what this region may spend
	 */
	long share(String name);

	/**
	 * Reads every region's share of an allotted budget as this region sees it: its own
	 * exactly, the others' as last shipped here.
	 * @param name the budget name
	 * @return each region's share by region name, this region first; empty for a shared
	 * budget or one this region does not see
	 */
	Map<String, Long> shares(String name);

	/**
	 * Spends from a budget when this region sees enough of it (its share, for an allotted
	 * budget). The operation id makes a retry safe within this region (a retry answers as
	 * the first attempt did while the id is remembered,
	 * {@code redkit.regions.budgets.operation-ttl}); the same id used in two regions is
	 * two spends.
	 * @param name the budget name
	 * @param amount the amount, positive
	 * @param operationId the caller's id of this spend
	 * @return whether it was spent and what is left as this region sees it
	 */
	RegionalSpend spend(String name, long amount, String operationId);

	/**
	 * Spends from a budget like {@link #spend(String, long, String)}, without an
	 * operation id of the caller's: a retry by the caller spends again. A copy that the
	 * client sends again after a reconnect is applied once (an id generated per call,
	 * remembered only while such a copy can arrive). For callers that do not retry, or
	 * that dedupe elsewhere.
	 * @param name the budget name
	 * @param amount the amount, positive
	 * @return whether it was spent and what is left as this region sees it
	 */
	RegionalSpend spend(String name, long amount);

	/**
	 * Gives an amount back to a budget, idempotent per operation id like {@link #spend}.
	 * @param name the budget name
	 * @param amount the amount, positive
	 * @param operationId the caller's id of this refund
	 * @return what is left as this region sees it
	 */
	long refund(String name, long amount, String operationId);

	/**
	 * Takes an amount aside when this region sees enough (its share, for an allotted
	 * budget): it counts as spent in every region until it is committed, released or
	 * expires, and only this region knows it is a reservation. Idempotent per operation
	 * id like {@link #spend}; the id names the reservation.
	 * @param name the budget name
	 * @param amount the amount, positive
	 * @param ttl after which an open reservation gives its amount back (settled by the
	 * next change of the budget in this region)
	 * @param operationId the caller's id of this reservation, unique in this region
	 * @return the reservation, or empty when this region sees too little
	 */
	Optional<Reservation> reserve(String name, long amount, Duration ttl, String operationId);

	/**
	 * Spends all or part of a reservation made in this region and gives back the rest. A
	 * repeated commit answers as the first; a reservation already released or expired is
	 * not applied.
	 * @param reservation the reservation
	 * @param actualAmount what is spent, between 0 and the reserved amount
	 * @return whether it was applied, and what is left as this region sees it
	 */
	RegionalSpend commit(Reservation reservation, long actualAmount);

	/**
	 * Gives a reservation made in this region back; does nothing when it was already
	 * committed, released or expired.
	 * @param reservation the reservation
	 */
	void release(Reservation reservation);

	/**
	 * Gives part of this region's share of an allotted budget to another region, at most
	 * the whole share. Idempotent per operation id like {@link #spend}; the receiver can
	 * spend it once it arrived by replication.
	 * @param name the budget name
	 * @param region the receiving region, a peer
	 * @param amount the amount asked, positive
	 * @param operationId the caller's id of this transfer
	 * @return what was given, {@code 0} when this region's share is empty or the budget
	 * is shared
	 */
	long give(String name, String region, long amount, String operationId);

	/**
	 * Asks the other regions for part of their unspent shares of an allotted budget: the
	 * region with the largest share as seen here first, each giving what it has (a
	 * {@link #give} run on that region's Redis, so a partitioned region gives nothing),
	 * until the amount is reached. What was given is usable here at once.
	 * <p>
	 * This region keeps, for {@code redkit.regions.budgets.operation-ttl}, the order in
	 * which the first attempt asked the regions and what each gave: a retry with the same
	 * id follows that order, asks again only the regions that did not answer, and stops
	 * at the amount, so it borrows nothing twice.
	 * @param name the budget name
	 * @param amount the amount wanted, positive
	 * @param operationId the caller's id of this request: a retry asks no region twice
	 * @return what the other regions gave (for a retry: in all attempts)
	 */
	long borrow(String name, long amount, String operationId);

	/**
	 * The answer of a {@link #spend}.
	 *
	 * @param spent whether the amount was spent (or had been, for a replayed id)
	 * @param remaining what is left as this region sees it (as of the first attempt, for
	 * a replayed id)
	 * @param replayed whether the operation id had been seen before, so that nothing
	 * changed
	 */
	record RegionalSpend(boolean spent, long remaining, boolean replayed) {
	}

}
