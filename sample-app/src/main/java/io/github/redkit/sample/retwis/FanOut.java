package io.github.redkit.sample.retwis;

/**
 * The queue message that asks a worker to push a post into its author's followers'
 * timelines.
 *
 * @param postId the post
 * @param authorId its author
 */
public record FanOut(long postId, long authorId) {

}
