package io.github.redkit.sample.retwis;

import java.util.Map;

import io.github.redkit.ratelimit.RateLimited;
import io.github.redkit.sample.web.ApiException;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Service;

/**
 * Retwis accounts: ids from {@code INCR}, a hash per user, the {@code users} hash from
 * name to id and the {@code auths} hash from auth secret to id; a Bloom filter of the
 * names ({@link TakenNames}) spares most sign-ups the {@code users} lookup.
 */
@Service
public class Users {

	private final StringRedisTemplate redis;

	private final TakenNames takenNames;

	public Users(StringRedisTemplate redis, TakenNames takenNames) {
		this.redis = redis;
		this.takenNames = takenNames;
	}

	/**
	 * Creates an account and returns its auth secret.
	 * @param name a validated name
	 * @param password the clear password (hashed here)
	 * @return the new user's auth secret
	 */
	public Session register(String name, String password) {
		if (isTaken(name)) {
			throw new ApiException(HttpStatus.CONFLICT, "The name '" + name + "' is taken");
		}
		long id = this.redis.opsForValue().increment(Keys.NEXT_USER_ID);
		// before HSETNX: a name in the users hash is always in the filter, even when this
		// call fails between the two
		this.takenNames.add(name);
		// HSETNX decides races between two registrations of one name
		if (!this.redis.opsForHash().putIfAbsent(Keys.USERS, name, Long.toString(id))) {
			throw new ApiException(HttpStatus.CONFLICT, "The name '" + name + "' is taken");
		}
		String secret = PasswordHasher.randomSecret();
		this.redis.opsForHash()
			.putAll(Keys.user(id), Map.of("name", name, "password", PasswordHasher.hash(password), "auth", secret,
					"created", Long.toString(System.currentTimeMillis())));
		this.redis.opsForHash().put(Keys.AUTHS, secret, Long.toString(id));
		return new Session(id, name, secret);
	}

	/**
	 * Logs a user in. Only failed attempts count against the limit, by name and by client
	 * address: a burst of guesses is refused before the password is checked, while users
	 * who log in correctly never spend it.
	 * @param name the user's name
	 * @param password the clear password
	 * @param ip the client's address
	 * @return the session
	 */
	// tag::count-when[]
	@RateLimited(value = "login-failures", key = { "'user:' + #name", "'ip:' + #ip" }, countWhen = "#exception != null")
	public Session login(String name, String password, String ip) {
		// end::count-when[]
		Long id = idOf(name);
		String stored = (id != null) ? (String) this.redis.opsForHash().get(Keys.user(id), "password") : null;
		if (id == null || !PasswordHasher.matches(password, stored)) {
			throw new ApiException(HttpStatus.UNAUTHORIZED, "Wrong name or password");
		}
		String secret = (String) this.redis.opsForHash().get(Keys.user(id), "auth");
		return new Session(id, name, secret);
	}

	/**
	 * Rotates the user's secret, so that every copy of the old one stops working.
	 * @param user the user
	 */
	public void logout(User user) {
		String old = (String) this.redis.opsForHash().get(Keys.user(user.id()), "auth");
		String secret = PasswordHasher.randomSecret();
		this.redis.opsForHash().put(Keys.user(user.id()), "auth", secret);
		this.redis.opsForHash().put(Keys.AUTHS, secret, Long.toString(user.id()));
		if (old != null) {
			this.redis.opsForHash().delete(Keys.AUTHS, old);
		}
	}

	/**
	 * The user an {@code Authorization: Bearer <secret>} header belongs to.
	 * @param header the header value, may be {@code null}
	 * @return the user
	 */
	public User authenticate(String header) {
		if (header == null || !header.startsWith("Bearer ") || header.length() > 200) {
			throw ApiException.unauthorized();
		}
		String secret = header.substring(7).trim();
		Object id = this.redis.opsForHash().get(Keys.AUTHS, secret);
		if (id == null) {
			throw ApiException.unauthorized();
		}
		long userId = Long.parseLong((String) id);
		// the user hash is the reference: a secret left in auths by a race is not enough
		java.util.List<Object> fields = this.redis.opsForHash()
			.multiGet(Keys.user(userId), java.util.List.of("auth", "name"));
		if (!secret.equals(fields.get(0))) {
			throw ApiException.unauthorized();
		}
		return new User(userId, (String) fields.get(1));
	}

	/**
	 * Whether a name belongs to someone. The Bloom filter of {@link TakenNames} answers
	 * "surely free" for most free names without reading the {@code users} hash; a "maybe
	 * taken" (taken, or one of its false positives) is settled by the hash, which stays
	 * the authority: the filter never says "free" for a taken name, and were it ever
	 * wrong (say its key was lost), the {@code HSETNX} of {@link #register} still refuses
	 * the name.
	 * @param name a validated name
	 * @return whether it is taken
	 */
	public boolean isTaken(String name) {
		return this.takenNames.maybeTaken(name) && this.redis.opsForHash().hasKey(Keys.USERS, name);
	}

	public @Nullable Long idOf(String name) {
		Object id = this.redis.opsForHash().get(Keys.USERS, name);
		return (id != null) ? Long.valueOf((String) id) : null;
	}

	public long require(String name) {
		Long id = idOf(name);
		if (id == null) {
			throw ApiException.notFound("No user named '" + name + "'");
		}
		return id;
	}

	public String nameOf(long id) {
		return (String) this.redis.opsForHash().get(Keys.user(id), "name");
	}

	/**
	 * What login and registration answer.
	 *
	 * @param id the user id
	 * @param name the name
	 * @param secret the auth secret to send as {@code Authorization: Bearer <secret>}
	 */
	public record Session(long id, String name, String secret) {

	}

}
