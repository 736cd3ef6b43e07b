package io.github.redkit.ratelimit.internal;

import java.util.List;
import java.util.function.LongSupplier;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import com.github.benmanes.caffeine.cache.Policy;
import io.github.redkit.ratelimit.RateLimitWindow;

/**
 * The local limiter's states by key, in a Caffeine cache: bounded in size (the least used
 * beyond it are forgotten) and each state dropped a period and a sub-window after its
 * last use, when nothing it counted counts any more. Kept apart from
 * {@link LocalRateLimiter} so that Caffeine is loaded only when the local failure mode is
 * on.
 */
final class LocalKeyStates {

	private final Cache<String, LocalKeyState> states;

	// each use renews its state's expiry itself: Caffeine leaves out a read's renewal
	// that would move an expiry by less than a second, so a state of a 1 s period (kept
	// 1.1 s) used often would go as soon as 100 ms after its last use, and its counts
	// with it
	private final Policy.VarExpiration<String, LocalKeyState> expiration;

	/**
	 * Creates the states.
	 * @param maxKeys the most states kept
	 * @param clock the limiter's clock: a state's lifetime is counted on the clock its
	 * counts are on
	 */
	LocalKeyStates(long maxKeys, LongSupplier clock) {
		this.states = Caffeine.newBuilder()
			.maximumSize(maxKeys)
			.ticker(clock::getAsLong)
			.expireAfter(Expiry.<String, LocalKeyState>creating((key, state) -> state.lifetime()))
			.build();
		this.expiration = this.states.policy().expireVariably().orElseThrow();
	}

	LocalKeyState get(String key, List<RateLimitWindow> windows, int subWindows) {
		LocalKeyState state = this.states.get(key, (absent) -> new LocalKeyState(windows, subWindows));
		if (!state.fits(windows, subWindows)) {
			// the limit was defined anew with other periods: its counts mean nothing now
			state = new LocalKeyState(windows, subWindows);
			this.states.put(key, state);
		}
		this.expiration.setExpiresAfter(key, state.lifetime());
		return state;
	}

	long size() {
		return this.states.estimatedSize();
	}

}
