package io.github.redkit.idempotency.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The form a request's handler receives as parameters and parts rather than as a body
 * (servers and filters such as Spring Security's CSRF filter read form bodies into
 * parameters before the idempotency filter): what makes two such requests the same. Each
 * name, value and part is written with its length, so that no two forms read alike.
 */
public final class ReceivedForm {

	private final MessageDigest digest = HttpIdempotency.sha256();

	private long size;

	/**
	 * Adds a parameter.
	 * @param name its name
	 * @param values its values, in order
	 * @return this form
	 */
	public ReceivedForm parameter(String name, List<String> values) {
		text("p");
		text(name);
		text(Integer.toString(values.size()));
		values.forEach(this::text);
		return this;
	}

	/**
	 * Adds a part of a multipart request.
	 * @param name its name
	 * @param filename the file's name, {@code null} for a field
	 * @param contentType its content type, {@code null} for none
	 * @param content its content
	 * @return this form
	 * @throws IOException when the content cannot be read
	 */
	public ReceivedForm part(String name, @Nullable String filename, @Nullable String contentType, InputStream content)
			throws IOException {
		text("f");
		text(name);
		text((filename != null) ? "1" + filename : "0");
		text((contentType != null) ? "1" + contentType : "0");
		MessageDigest part = HttpIdempotency.sha256();
		byte[] buffer = new byte[8192];
		for (int read = content.read(buffer); read != -1; read = content.read(buffer)) {
			part.update(buffer, 0, read);
			this.size += read;
		}
		this.digest.update(part.digest());
		return this;
	}

	/**
	 * How many bytes of part content were read, to hold the request to its limit.
	 * @return the size of the parts' content
	 */
	public long size() {
		return this.size;
	}

	byte[] digest() {
		return this.digest.digest();
	}

	private void text(String text) {
		byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
		this.digest.update((bytes.length + ":").getBytes(StandardCharsets.US_ASCII));
		this.digest.update(bytes);
	}

}
