package io.github.redkit.idempotency.web;

import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.io.UnsupportedEncodingException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpHeaders;
import org.springframework.util.FastByteArrayOutputStream;

/**
 * The response of a claimed request on Spring MVC: its body is held until the response is
 * whole, so that it can be recorded before the client gets it, but never more than
 * {@code max-response-size} of it, and never an event stream or a streaming body. Past
 * either the body goes through to the client as it comes and the response is not
 * replayable. It knows the headers the filters in front set before it, so that only what
 * the application produced behind them is recorded.
 */
final class RecordingResponse extends HttpServletResponseWrapper {

	// set by Spring MVC on a request whose body streams (ShallowEtagHeaderFilter's
	// marker)
	private static final String STREAMING = "org.springframework.web.filter.ShallowEtagHeaderFilter.STREAMING";

	private final HttpServletRequest request;

	private final int limit;

	private final Map<String, List<String>> before;

	private final FastByteArrayOutputStream buffer = new FastByteArrayOutputStream(1024);

	private volatile boolean streaming;

	private @Nullable Long contentLength;

	private @Nullable ServletOutputStream stream;

	private @Nullable PrintWriter writer;

	RecordingResponse(HttpServletResponse response, HttpServletRequest request, long limit) {
		super(response);
		this.request = request;
		this.limit = (int) Math.min(limit, Integer.MAX_VALUE - 8);
		this.before = headers(response);
	}

	/**
	 * Whether the body went through to the client rather than being held.
	 * @return whether the response is not replayable
	 */
	boolean streamed() {
		return this.streaming;
	}

	/**
	 * The body held so far.
	 * @return its bytes
	 */
	synchronized byte[] body() {
		return this.buffer.toByteArray();
	}

	/**
	 * The headers the application set behind the filter: what the filters in front had
	 * set when the request reached it is theirs, set again on a replay.
	 * @return the headers to record
	 */
	HttpHeaders produced() {
		HttpHeaders produced = new HttpHeaders();
		headers(this).forEach((name, values) -> {
			List<String> added = new ArrayList<>(values);
			this.before.getOrDefault(name.toLowerCase(Locale.ROOT), List.of()).forEach(added::remove);
			if (!added.isEmpty()) {
				produced.addAll(name, added);
			}
		});
		String type = getContentType();
		if (type != null && !this.before.containsKey("content-type")) {
			produced.set(HttpHeaders.CONTENT_TYPE, type);
		}
		return produced;
	}

	/**
	 * Sends what is held to the client, once the response is recorded.
	 * @throws IOException when the client cannot be written to
	 */
	synchronized void sendHeld() throws IOException {
		flushWriter();
		if (this.streaming) {
			return;
		}
		HttpServletResponse response = (HttpServletResponse) getResponse();
		if (!response.isCommitted()) {
			response.setContentLength(this.buffer.size());
		}
		if (this.buffer.size() > 0) {
			this.buffer.writeTo(response.getOutputStream());
			this.buffer.reset();
		}
	}

	/**
	 * Pushes what the application's writer holds into the body.
	 */
	void flushWriter() {
		PrintWriter writer = this.writer;
		if (writer != null) {
			writer.flush();
		}
	}

	@Override
	public ServletOutputStream getOutputStream() {
		ServletOutputStream stream = this.stream;
		if (stream == null) {
			stream = new Body();
			this.stream = stream;
		}
		return stream;
	}

	@Override
	public PrintWriter getWriter() throws UnsupportedEncodingException {
		PrintWriter writer = this.writer;
		if (writer == null) {
			writer = new PrintWriter(new OutputStreamWriter(getOutputStream(), getCharacterEncoding()), false);
			this.writer = writer;
		}
		return writer;
	}

	@Override
	public synchronized void flushBuffer() throws IOException {
		flushWriter();
		if (!this.streaming && streams(true)) {
			stream();
		}
		if (this.streaming) {
			super.flushBuffer();
		}
	}

	@Override
	public synchronized void resetBuffer() {
		if (this.streaming) {
			super.resetBuffer();
		}
		else {
			this.buffer.reset();
		}
	}

	@Override
	public synchronized void reset() {
		super.reset();
		this.buffer.reset();
		this.contentLength = null;
	}

	@Override
	public synchronized void sendError(int status) throws IOException {
		this.buffer.reset();
		super.sendError(status);
	}

	@Override
	public synchronized void sendError(int status, String message) throws IOException {
		this.buffer.reset();
		super.sendError(status, message);
	}

	@Override
	public synchronized void setContentLength(int length) {
		setContentLengthLong(length);
	}

	@Override
	public synchronized void setContentLengthLong(long length) {
		if (this.streaming) {
			super.setContentLengthLong(length);
		}
		else {
			// the length is the client's once the body goes to it
			this.contentLength = length;
		}
	}

	@Override
	public void setHeader(String name, String value) {
		if (HttpHeaders.CONTENT_LENGTH.equalsIgnoreCase(name)) {
			setContentLengthLong(Long.parseLong(value));
		}
		else {
			super.setHeader(name, value);
		}
	}

	@Override
	public void addHeader(String name, String value) {
		if (HttpHeaders.CONTENT_LENGTH.equalsIgnoreCase(name)) {
			setContentLengthLong(Long.parseLong(value));
		}
		else {
			super.addHeader(name, value);
		}
	}

	@Override
	public void setIntHeader(String name, int value) {
		if (HttpHeaders.CONTENT_LENGTH.equalsIgnoreCase(name)) {
			setContentLengthLong(value);
		}
		else {
			super.setIntHeader(name, value);
		}
	}

	@Override
	public void addIntHeader(String name, int value) {
		if (HttpHeaders.CONTENT_LENGTH.equalsIgnoreCase(name)) {
			setContentLengthLong(value);
		}
		else {
			super.addIntHeader(name, value);
		}
	}

	// an event stream or a streaming body is never held; neither is one that the
	// application flushes while its request runs asynchronously: it streams
	private boolean streams(boolean flushing) {
		String type = getContentType();
		if (type != null) {
			String lower = type.toLowerCase(Locale.ROOT);
			if (lower.startsWith("text/event-stream") || lower.startsWith("application/x-ndjson")) {
				return true;
			}
		}
		return this.request.getAttribute(STREAMING) != null || (flushing && this.request.isAsyncStarted());
	}

	// from here on the body goes through: what is held first
	private void stream() throws IOException {
		this.streaming = true;
		Long length = this.contentLength;
		if (length != null) {
			super.setContentLengthLong(length);
		}
		ServletOutputStream out = getResponse().getOutputStream();
		this.buffer.writeTo(out);
		this.buffer.reset();
	}

	private synchronized void write(byte[] bytes, int offset, int length) throws IOException {
		if (!this.streaming && (streams(false) || this.buffer.size() + (long) length > this.limit)) {
			stream();
		}
		if (this.streaming) {
			getResponse().getOutputStream().write(bytes, offset, length);
		}
		else {
			this.buffer.write(bytes, offset, length);
		}
	}

	// a server may list a name once per value (Tomcat does)
	private static Map<String, List<String>> headers(HttpServletResponse response) {
		Map<String, List<String>> headers = new LinkedHashMap<>();
		for (String name : response.getHeaderNames()) {
			String lower = name.toLowerCase(Locale.ROOT);
			if (!headers.containsKey(lower)) {
				headers.put(lower, new ArrayList<>(response.getHeaders(name)));
			}
		}
		return headers;
	}

	/**
	 * The body the application writes: held, or passed through once it streams.
	 */
	private final class Body extends ServletOutputStream {

		@Override
		public void write(int b) throws IOException {
			RecordingResponse.this.write(new byte[] { (byte) b }, 0, 1);
		}

		@Override
		public void write(byte[] bytes, int offset, int length) throws IOException {
			RecordingResponse.this.write(bytes, offset, length);
		}

		@Override
		public void flush() throws IOException {
			synchronized (RecordingResponse.this) {
				if (!RecordingResponse.this.streaming && streams(true)) {
					stream();
				}
				if (RecordingResponse.this.streaming) {
					getResponse().getOutputStream().flush();
				}
			}
		}

		@Override
		public boolean isReady() {
			return !RecordingResponse.this.streaming || readyToStream();
		}

		@Override
		public void setWriteListener(WriteListener listener) {
			try {
				getResponse().getOutputStream().setWriteListener(listener);
			}
			catch (IOException ex) {
				throw new IllegalStateException(ex);
			}
		}

		private boolean readyToStream() {
			try {
				return getResponse().getOutputStream().isReady();
			}
			catch (IOException ex) {
				return false;
			}
		}

	}

}
