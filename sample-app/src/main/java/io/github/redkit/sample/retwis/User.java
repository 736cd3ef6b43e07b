package io.github.redkit.sample.retwis;

/**
 * An authenticated user.
 *
 * @param id the id from {@code INCR next_user_id}
 * @param name the unique user name
 */
public record User(long id, String name) {

}
