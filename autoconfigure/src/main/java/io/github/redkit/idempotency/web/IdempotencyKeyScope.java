package io.github.redkit.idempotency.web;

import java.util.Objects;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * Whose key space an {@code Idempotency-Key} belongs to: a kind (a user, a tenant, an API
 * key, a client address) and a value. Two scopes meet only when both their kind and their
 * value are equal, so that a user named {@code acme} never shares keys with the tenant
 * {@code acme}.
 */
public final class IdempotencyKeyScope {

	/** The kind of an authenticated user's scope. */
	public static final String USER = "user";

	private static final String SHARED_KIND = "shared";

	private static final Pattern KIND = Pattern.compile("[a-z][a-z0-9-]{0,31}");

	private static final IdempotencyKeyScope SHARED = new IdempotencyKeyScope(SHARED_KIND, "");

	private final String kind;

	private final String value;

	private IdempotencyKeyScope(String kind, String value) {
		this.kind = kind;
		this.value = value;
	}

	/**
	 * The scope of an authenticated user.
	 * @param name the user's name
	 * @return the scope
	 * @throws IllegalArgumentException when the name is empty
	 */
	public static IdempotencyKeyScope user(String name) {
		return of(USER, name);
	}

	/**
	 * A scope of any kind.
	 * @param kind what the value names: lower-case letters, digits and {@code -},
	 * starting with a letter, e.g. {@code tenant}
	 * @param value who, within the kind
	 * @return the scope
	 * @throws IllegalArgumentException when the kind is malformed or reserved, or the
	 * value empty
	 */
	public static IdempotencyKeyScope of(String kind, String value) {
		checkKind(kind);
		if (value == null || value.isEmpty()) {
			throw new IllegalArgumentException("value must not be empty");
		}
		return new IdempotencyKeyScope(kind, value);
	}

	// a kind never holds ':' or '.', so that the operation a scope names reads one way
	static String checkKind(String kind) {
		if (kind == null || !KIND.matcher(kind).matches()) {
			throw new IllegalArgumentException(
					"kind must be lower-case letters, digits and '-', starting with a letter (was " + kind + ")");
		}
		if (SHARED_KIND.equals(kind)) {
			throw new IllegalArgumentException("kind 'shared' is reserved for IdempotencyKeyScope.shared()");
		}
		return kind;
	}

	/**
	 * The one scope every caller it is given to shares: their keys meet.
	 * @return the shared scope
	 */
	public static IdempotencyKeyScope shared() {
		return SHARED;
	}

	/**
	 * What the value names.
	 * @return the kind
	 */
	public String kind() {
		return this.kind;
	}

	/**
	 * Who, within the kind.
	 * @return the value, empty for the shared scope
	 */
	public String value() {
		return this.value;
	}

	/**
	 * Whether this is the scope every anonymous caller shares.
	 * @return whether it is {@link #shared()}
	 */
	public boolean isShared() {
		return this == SHARED;
	}

	@Override
	public boolean equals(@Nullable Object other) {
		return (other instanceof IdempotencyKeyScope scope) && this.kind.equals(scope.kind)
				&& this.value.equals(scope.value);
	}

	@Override
	public int hashCode() {
		return Objects.hash(this.kind, this.value);
	}

	@Override
	public String toString() {
		return isShared() ? "shared" : this.kind + ":" + this.value;
	}

}
