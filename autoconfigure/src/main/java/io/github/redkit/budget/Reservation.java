package io.github.redkit.budget;

/**
 * Money taken aside from a budget until it is committed, released or expires. A plain
 * value: it can be stored (as JSON, e.g. as an idempotent step's result) and used by
 * another process.
 *
 * @param budgetId the budget
 * @param id the reservation's id
 * @param amount the reserved amount, in minor units
 */
public record Reservation(String budgetId, String id, long amount) {

}
