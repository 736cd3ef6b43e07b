package io.github.redkit.actuate;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;
import org.springframework.util.MimeType;

/**
 * The dashboard: {@code GET /actuator/redkit} with {@code Accept: text/html} answers one
 * static page that polls the endpoint's JSON operations. Being an operation of the
 * endpoint, it has the endpoint's exposure, access and security; being a web extension,
 * JMX never sees it.
 */
@EndpointWebExtension(endpoint = RedkitEndpoint.class)
public class RedkitDashboardWebExtension {

	/** The page, one self-contained file (inline CSS and script, no library). */
	public static final String PAGE = "META-INF/redkit/dashboard/index.html";

	private static final MimeType HTML = new MimeType("text", "html", StandardCharsets.UTF_8);

	private final byte[] page;

	/**
	 * Creates the extension. The page reads the endpoint's access from the summary, and
	 * shows its write buttons only when it is {@code unrestricted}.
	 * @param pollInterval how often the page polls the endpoint
	 */
	public RedkitDashboardWebExtension(Duration pollInterval) {
		// a number from configuration, never from a request
		this.page = read().replace("@poll-millis@", Long.toString(Math.max(500, pollInterval.toMillis())))
			.getBytes(StandardCharsets.UTF_8);
	}

	/**
	 * The dashboard page; clients that accept JSON (or anything) still get the summary.
	 * @return the page
	 */
	@ReadOperation(produces = "text/html")
	public WebEndpointResponse<byte[]> dashboard() {
		return new WebEndpointResponse<>(this.page, HTML);
	}

	private static String read() {
		try (InputStream in = RedkitDashboardWebExtension.class.getClassLoader().getResourceAsStream(PAGE)) {
			if (in == null) {
				throw new IllegalStateException("The dashboard page " + PAGE + " is missing from the classpath");
			}
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
