package io.github.redkit.sample.retwis;

import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;

import org.jspecify.annotations.Nullable;

/**
 * PBKDF2-HMAC-SHA256 with a random salt per password, stored as
 * {@code pbkdf2$<iterations>$<salt>$<hash>}; the clear password is never stored.
 */
final class PasswordHasher {

	private static final int ITERATIONS = 50_000;

	private static final SecureRandom RANDOM = new SecureRandom();

	private PasswordHasher() {
	}

	static String hash(String password) {
		byte[] salt = new byte[16];
		RANDOM.nextBytes(salt);
		return "pbkdf2$" + ITERATIONS + "$" + b64(salt) + "$" + b64(derive(password, salt, ITERATIONS));
	}

	static boolean matches(String password, @Nullable String stored) {
		String[] parts = (stored != null) ? stored.split("\\$") : new String[0];
		if (parts.length != 4 || !"pbkdf2".equals(parts[0])) {
			return false;
		}
		byte[] salt = Base64.getDecoder().decode(parts[2]);
		byte[] expected = Base64.getDecoder().decode(parts[3]);
		// constant time, so the comparison does not tell how many bytes matched
		return MessageDigest.isEqual(expected, derive(password, salt, Integer.parseInt(parts[1])));
	}

	static String randomSecret() {
		byte[] secret = new byte[20];
		RANDOM.nextBytes(secret);
		return Base64.getUrlEncoder().withoutPadding().encodeToString(secret);
	}

	private static byte[] derive(String password, byte[] salt, int iterations) {
		try {
			PBEKeySpec spec = new PBEKeySpec(password.toCharArray(), salt, iterations, 256);
			return SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256").generateSecret(spec).getEncoded();
		}
		catch (GeneralSecurityException ex) {
			throw new IllegalStateException("PBKDF2WithHmacSHA256 is not available", ex);
		}
	}

	private static String b64(byte[] bytes) {
		return Base64.getEncoder().encodeToString(bytes);
	}

}
