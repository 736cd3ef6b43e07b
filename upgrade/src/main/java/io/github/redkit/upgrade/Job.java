package io.github.redkit.upgrade;

/**
 * A queued message's payload, as JSON.
 *
 * @param id who sent it and its number there
 */
public record Job(String id) {

}
