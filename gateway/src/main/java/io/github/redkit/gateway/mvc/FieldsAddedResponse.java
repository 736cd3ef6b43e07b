package io.github.redkit.gateway.mvc;

import java.io.IOException;
import java.util.Map;

import jakarta.servlet.ServletException;
import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.util.MultiValueMap;
import org.springframework.web.servlet.ModelAndView;
import org.springframework.web.servlet.function.ServerResponse;

/**
 * A response the route's handler built itself, with the rate-limit fields added: such a
 * response's headers are read-only (only the proxy's can be changed), so the fields are
 * written to the servlet response before the handler's response writes itself.
 */
final class FieldsAddedResponse implements ServerResponse {

	private final ServerResponse response;

	private final Map<String, String> fields;

	FieldsAddedResponse(ServerResponse response, Map<String, String> fields) {
		this.response = response;
		this.fields = Map.copyOf(fields);
	}

	@Override
	public HttpStatusCode statusCode() {
		return this.response.statusCode();
	}

	@Override
	public HttpHeaders headers() {
		HttpHeaders headers = new HttpHeaders();
		headers.putAll(this.response.headers());
		this.fields.forEach(headers::set);
		return HttpHeaders.readOnlyHttpHeaders(headers);
	}

	@Override
	public MultiValueMap<String, Cookie> cookies() {
		return this.response.cookies();
	}

	@Override
	public @Nullable ModelAndView writeTo(HttpServletRequest request, HttpServletResponse response, Context context)
			throws ServletException, IOException {
		this.fields.forEach(response::setHeader);
		return this.response.writeTo(request, response, context);
	}

}
