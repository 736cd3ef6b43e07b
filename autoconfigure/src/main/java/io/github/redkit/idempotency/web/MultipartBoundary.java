package io.github.redkit.idempotency.web;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;

/**
 * A multipart body as the fingerprint sees it: its boundary, which a client draws anew
 * for each attempt and the application never sees, is replaced by a fixed marker, so that
 * a retry of the same parts is the same request. A boundary longer than RFC 2046 allows
 * (70 characters) is not looked for: the body is fingerprinted as it came.
 */
final class MultipartBoundary {

	// RFC 2046, section 5.1.1
	private static final int MAX_BOUNDARY = 70;

	private static final byte[] MARKER = "\0boundary\0".getBytes(StandardCharsets.US_ASCII);

	private MultipartBoundary() {
	}

	static byte[] withoutBoundary(HttpHeaders headers, byte[] body) {
		String boundary = boundary(headers);
		if (boundary == null || boundary.isEmpty() || boundary.length() > MAX_BOUNDARY) {
			return body;
		}
		byte[] delimiter = ("--" + boundary).getBytes(StandardCharsets.US_ASCII);
		int[] fallback = fallback(delimiter);
		ByteArrayOutputStream out = new ByteArrayOutputStream(body.length);
		int from = 0;
		for (int at = indexOf(body, delimiter, fallback, 0); at >= 0; at = indexOf(body, delimiter, fallback, from)) {
			out.write(body, from, at - from);
			out.writeBytes(MARKER);
			from = at + delimiter.length;
		}
		out.write(body, from, body.length - from);
		return out.toByteArray();
	}

	private static @Nullable String boundary(HttpHeaders headers) {
		try {
			MediaType type = headers.getContentType();
			String boundary = (type != null && "multipart".equalsIgnoreCase(type.getType()))
					? type.getParameter("boundary") : null;
			return (boundary != null && boundary.length() > 1 && boundary.startsWith("\"") && boundary.endsWith("\""))
					? boundary.substring(1, boundary.length() - 1) : boundary;
		}
		catch (RuntimeException ex) {
			// an unreadable Content-Type: the body as it came
			return null;
		}
	}

	// Knuth-Morris-Pratt: the search runs on the event loop, in time linear in the body
	// whatever the boundary and the body repeat
	private static int indexOf(byte[] body, byte[] part, int[] fallback, int from) {
		int matched = 0;
		for (int i = from; i < body.length; i++) {
			while (matched > 0 && body[i] != part[matched]) {
				matched = fallback[matched - 1];
			}
			if (body[i] == part[matched]) {
				matched++;
			}
			if (matched == part.length) {
				return i - part.length + 1;
			}
		}
		return -1;
	}

	// for each prefix of the part, the length of its longest proper prefix that is also
	// its suffix
	private static int[] fallback(byte[] part) {
		int[] fallback = new int[part.length];
		int length = 0;
		for (int i = 1; i < part.length; i++) {
			while (length > 0 && part[i] != part[length]) {
				length = fallback[length - 1];
			}
			if (part[i] == part[length]) {
				length++;
			}
			fallback[i] = length;
		}
		return fallback;
	}

}
