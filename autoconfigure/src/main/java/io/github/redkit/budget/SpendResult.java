package io.github.redkit.budget;

/**
 * The answer to a budget change.
 *
 * @param applied whether the change was made (a refused spend changes nothing)
 * @param remaining the balance after the call, in minor units
 */
public record SpendResult(boolean applied, long remaining) {

}
