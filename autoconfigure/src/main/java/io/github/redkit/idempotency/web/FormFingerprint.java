package io.github.redkit.idempotency.web;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import org.springframework.util.MultiValueMap;

/**
 * A form as the fingerprint sees it: its fields, as the exchange parsed them, encoded
 * again, so that the fingerprint does not depend on who read the body first.
 */
final class FormFingerprint {

	private FormFingerprint() {
	}

	static byte[] bytes(MultiValueMap<String, String> form) {
		StringBuilder encoded = new StringBuilder();
		for (Map.Entry<String, List<String>> field : form.entrySet()) {
			for (String value : field.getValue()) {
				if (!encoded.isEmpty()) {
					encoded.append('&');
				}
				encoded.append(URLEncoder.encode(field.getKey(), StandardCharsets.UTF_8));
				// a field without '=' has no value
				if (value != null) {
					encoded.append('=').append(URLEncoder.encode(value, StandardCharsets.UTF_8));
				}
			}
		}
		return encoded.toString().getBytes(StandardCharsets.UTF_8);
	}

}
