package io.github.redkit.core.internal;

import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Random ids for what only has to be unique (a reservation, a claim, a give-back), not
 * secret: {@link UUID#randomUUID()}'s {@code SecureRandom} reads {@code /dev/urandom} now
 * and then, a blocking call on the event loop a reactive caller may run on.
 */
public final class RandomIds {

	private RandomIds() {
	}

	/**
	 * A new random id in the form of a UUID.
	 * @return the id
	 */
	public static String next() {
		ThreadLocalRandom random = ThreadLocalRandom.current();
		return new UUID(random.nextLong(), random.nextLong()).toString();
	}

}
