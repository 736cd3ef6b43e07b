package io.github.redkit.core.internal;

import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * Something of the application context that Redkit looks up late, so that its
 * auto-configuration may run after Redkit's (a Micrometer registry): on each use while
 * the context starts, once it is found no more, and for the last time when every
 * singleton exists ({@link #settle()}). From then on the answer is kept, a missing one
 * included: a bean factory lookup on every use cost a rate-limit decision more than its
 * interceptor. Its holder keeps the settled answer in a field of its own, so that a use
 * after start-up runs no code of this class.
 *
 * @param <T> what is looked up
 */
public final class LateLookup<T> implements Supplier<@Nullable T> {

	private final Supplier<@Nullable T> lookup;

	private volatile @Nullable T found;

	private volatile boolean settled;

	/**
	 * Creates the lookup.
	 * @param lookup looks it up, {@code null} while there is none
	 */
	public LateLookup(Supplier<@Nullable T> lookup) {
		this.lookup = lookup;
	}

	/**
	 * What was found.
	 * @return it, or {@code null} when there is none (yet)
	 */
	@Override
	public @Nullable T get() {
		T current = this.found;
		if (current == null && !this.settled) {
			current = this.lookup.get();
			this.found = current;
		}
		return current;
	}

	/**
	 * Looks it up for the last time when not found yet; call once every singleton exists.
	 * @return what was found, for the holder to keep: from then on it need not ask again,
	 * or {@code null} when there is none
	 */
	public @Nullable T settle() {
		T current = this.found;
		if (current == null) {
			current = this.lookup.get();
			this.found = current;
		}
		this.settled = true;
		return current;
	}

}
