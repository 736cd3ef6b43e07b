package io.github.redkit.sample.web;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;

/**
 * Admin endpoints want {@code X-Admin-Token: <sample.admin-token>}; a sample keeps it
 * that simple.
 */
@Component
public class AdminGuard {

	private final byte[] token;

	public AdminGuard(@Value("${sample.admin-token}") String token) {
		this.token = token.getBytes(StandardCharsets.UTF_8);
	}

	public void check(String header) {
		if (header == null || !MessageDigest.isEqual(this.token, header.getBytes(StandardCharsets.UTF_8))) {
			throw new ApiException(HttpStatus.FORBIDDEN, "Admin only: send 'X-Admin-Token'");
		}
	}

}
