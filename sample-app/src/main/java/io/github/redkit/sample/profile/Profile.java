package io.github.redkit.sample.profile;

/**
 * A user's public profile, cached as JSON in the {@code profiles} cache.
 *
 * @param id the user id
 * @param name the name
 * @param followers how many follow them
 * @param following how many they follow
 * @param posts how many posts they wrote
 * @param lastSeen when they were last active (epoch millis, 0 = never), precise to the
 * last-seen delay
 */
public record Profile(long id, String name, long followers, long following, long posts, long lastSeen) {

}
