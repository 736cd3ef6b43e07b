package io.github.redkit.gateway.mvc;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import com.sun.net.httpserver.HttpServer;

/**
 * A real HTTP backend on a random port, apart from the gateway: answers
 * {@code GET /api/hello} with {@code hello}, {@code /api/login} with 200 or 401, and
 * counts the calls that reach it.
 */
final class Backend implements AutoCloseable {

	private final AtomicInteger calls = new AtomicInteger();

	private final ExecutorService threads = Executors.newFixedThreadPool(8);

	private final HttpServer server;

	Backend() throws IOException {
		this.server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
		this.server.createContext("/api/hello", (exchange) -> {
			this.calls.incrementAndGet();
			byte[] body = "hello".getBytes(StandardCharsets.UTF_8);
			exchange.sendResponseHeaders(200, body.length);
			try (OutputStream out = exchange.getResponseBody()) {
				out.write(body);
			}
		});
		// 200 with the right password, 401 otherwise
		this.server.createContext("/api/login", (exchange) -> {
			this.calls.incrementAndGet();
			boolean right = "right".equals(exchange.getRequestHeaders().getFirst("X-Password"));
			exchange.sendResponseHeaders(right ? 200 : 401, -1);
			exchange.close();
		});
		this.server.setExecutor(this.threads);
		this.server.start();
	}

	String uri() {
		return "http://127.0.0.1:" + this.server.getAddress().getPort();
	}

	int calls() {
		return this.calls.get();
	}

	@Override
	public void close() {
		this.server.stop(0);
		this.threads.shutdownNow();
	}

}
