package io.github.redkit.sample.retwis;

/**
 * The Retwis key names (seed 003): users in hashes, relations in sorted sets scored by
 * time, timelines in lists.
 */
public final class Keys {

	public static final String PREFIX = "retwis:";

	public static final String NEXT_USER_ID = PREFIX + "next_user_id";

	public static final String NEXT_POST_ID = PREFIX + "next_post_id";

	public static final String USERS = PREFIX + "users";

	public static final String AUTHS = PREFIX + "auths";

	public static final String GLOBAL_TIMELINE = PREFIX + "timeline";

	private Keys() {
	}

	public static String user(long id) {
		return PREFIX + "user:" + id;
	}

	public static String followers(long id) {
		return PREFIX + "followers:" + id;
	}

	public static String following(long id) {
		return PREFIX + "following:" + id;
	}

	public static String post(long id) {
		return PREFIX + "post:" + id;
	}

	public static String posts(long userId) {
		return PREFIX + "posts:" + userId;
	}

	public static String timeline(long userId) {
		return PREFIX + "timeline:" + userId;
	}

}
