package io.github.redkit.sample.retwis;

/**
 * A post as stored in {@code retwis:post:<id>}.
 *
 * @param id the id from {@code INCR next_post_id}
 * @param userId the author's id
 * @param name the author's name
 * @param time when it was posted (epoch millis)
 * @param body the text
 */
public record Post(long id, long userId, String name, long time, String body) {

}
