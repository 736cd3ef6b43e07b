package io.github.redkit.idempotency.web;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;

/**
 * A multipart body as the fingerprint sees it: its boundary, which a client draws anew
 * for each attempt and the application never sees, is replaced by a fixed marker, so that
 * a retry of the same parts is the same request.
 */
final class MultipartBoundary {

	private static final byte[] MARKER = "\0boundary\0".getBytes(StandardCharsets.US_ASCII);

	private MultipartBoundary() {
	}

	static byte[] withoutBoundary(HttpHeaders headers, byte[] body) {
		String boundary = boundary(headers);
		if (boundary == null || boundary.isEmpty()) {
			return body;
		}
		byte[] delimiter = ("--" + boundary).getBytes(StandardCharsets.US_ASCII);
		ByteArrayOutputStream out = new ByteArrayOutputStream(body.length);
		int from = 0;
		for (int at = indexOf(body, delimiter, 0); at >= 0; at = indexOf(body, delimiter, from)) {
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

	private static int indexOf(byte[] body, byte[] part, int from) {
		outer: for (int i = from; i <= body.length - part.length; i++) {
			for (int j = 0; j < part.length; j++) {
				if (body[i + j] != part[j]) {
					continue outer;
				}
			}
			return i;
		}
		return -1;
	}

}
