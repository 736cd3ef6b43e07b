package io.github.redkit.gateway.mvc;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntConsumer;

import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.util.MultiValueMap;
import org.springframework.web.servlet.ModelAndView;
import org.springframework.web.servlet.function.ServerResponse;

/**
 * A response the route's handler built itself, with the rate-limit fields added: such a
 * response's headers are read-only (only the proxy's can be changed), so the fields are
 * written to the servlet response, and the handler's own values of them left out, as the
 * proxy's are replaced. One whose status is known only once it is written (an
 * asynchronous answer not yet complete) is settled with the status it was sent with.
 */
final class FieldsAddedResponse implements ServerResponse {

	private final ServerResponse response;

	private final Map<String, String> fields;

	private final @Nullable IntConsumer settle;

	/**
	 * The fields, and what settles the request's permits by the status sent, when the
	 * filter could not read it ({@code null} when it did).
	 */
	FieldsAddedResponse(ServerResponse response, Map<String, String> fields, @Nullable IntConsumer settle) {
		this.response = response;
		this.fields = Map.copyOf(fields);
		this.settle = settle;
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
		FieldsKept kept = new FieldsKept(response, this.fields);
		IntConsumer settle = this.settle;
		if (settle == null) {
			return this.response.writeTo(request, kept, context);
		}
		IntConsumer once = once(settle);
		ModelAndView view;
		try {
			view = this.response.writeTo(request, kept, context);
		}
		catch (IOException | ServletException | RuntimeException ex) {
			// answered by the application's error handling: judged as a server error
			once.accept(500);
			throw ex;
		}
		if (request.isAsyncStarted()) {
			// the answer is written on another dispatch: settled when the exchange
			// completes, with whatever status it got (an error or a timeout included)
			request.getAsyncContext().addListener(new Completion(response, once));
		}
		else {
			once.accept(response.getStatus());
		}
		return view;
	}

	private static IntConsumer once(IntConsumer settle) {
		AtomicBoolean settled = new AtomicBoolean();
		return (status) -> {
			if (settled.compareAndSet(false, true)) {
				settle.accept(status);
			}
		};
	}

	/**
	 * The servlet response the handler's response writes to: its values of the fields are
	 * dropped, the filter's stand.
	 */
	private static final class FieldsKept extends HttpServletResponseWrapper {

		private final Map<String, String> fields;

		FieldsKept(HttpServletResponse response, Map<String, String> fields) {
			super(response);
			this.fields = fields;
		}

		@Override
		public void setHeader(String name, @Nullable String value) {
			if (!isField(name)) {
				super.setHeader(name, value);
			}
		}

		@Override
		public void addHeader(String name, @Nullable String value) {
			if (!isField(name)) {
				super.addHeader(name, value);
			}
		}

		private boolean isField(String name) {
			return this.fields.keySet().stream().anyMatch(name::equalsIgnoreCase);
		}

	}

	private record Completion(HttpServletResponse response, IntConsumer settle) implements AsyncListener {

		@Override
		public void onComplete(AsyncEvent event) {
			this.settle.accept(this.response.getStatus());
		}

		@Override
		public void onTimeout(AsyncEvent event) {
			// completed after the application answered the timeout
		}

		@Override
		public void onError(AsyncEvent event) {
			// completed after the application answered the error
		}

		@Override
		public void onStartAsync(AsyncEvent event) {
			event.getAsyncContext().addListener(this);
		}

	}

}
