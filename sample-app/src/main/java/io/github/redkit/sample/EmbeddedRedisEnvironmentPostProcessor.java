package io.github.redkit.sample;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.time.Duration;
import java.util.Map;

import io.github.redkit.testsupport.RedisServer;
import io.github.redkit.testsupport.RedisServers;
import org.apache.commons.logging.Log;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.boot.logging.DeferredLogFactory;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Starts a {@code redis-server} process (the one on the PATH, else the one shipped in
 * embedded-redis) when no Redis is configured ({@code spring.data.redis.host},
 * {@code port} and {@code url} all unset) and none answers on {@code localhost:6379}, so
 * that the sample runs on a machine with only a JDK. A configured standalone Redis is
 * never replaced: start-up waits up to {@code sample.redis-wait} (30 s) for it, then
 * fails naming it. With {@code sample.embedded-redis-on-configured-port=true} (the
 * {@code regions} profile) the embedded server takes the configured local port when
 * nothing answers there. Set {@code sample.embedded-redis=false} to turn it off; a
 * configured cluster or Sentinel is always used as it is. The server starts with an empty
 * data directory and dies with the application, even one killed with {@code SIGKILL}.
 */
public class EmbeddedRedisEnvironmentPostProcessor implements EnvironmentPostProcessor, Ordered {

	private static final String HOST = "spring.data.redis.host";

	private static final String PORT = "spring.data.redis.port";

	private static final String URL = "spring.data.redis.url";

	private static @Nullable RedisServer embedded;

	private final Log logger;

	public EmbeddedRedisEnvironmentPostProcessor(DeferredLogFactory logFactory) {
		this.logger = logFactory.getLog(EmbeddedRedisEnvironmentPostProcessor.class);
	}

	@Override
	public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
		if (!environment.getProperty("sample.embedded-redis", Boolean.class, true)
				|| environment.containsProperty("spring.data.redis.cluster.nodes")
				|| environment.containsProperty("spring.data.redis.sentinel.master")) {
			return;
		}
		boolean configured = environment.containsProperty(HOST) || environment.containsProperty(PORT)
				|| environment.containsProperty(URL);
		String host = environment.getProperty(HOST, "localhost");
		int port = environment.getProperty(PORT, Integer.class, 6379);
		String url = environment.getProperty(URL);
		if (url != null) {
			URI uri = URI.create(url);
			host = uri.getHost();
			port = (uri.getPort() > 0) ? uri.getPort() : 6379;
		}
		if (isReachable(host, port)) {
			return;
		}
		// the sample's regions name each other's Redis by port: there the embedded server
		// takes the configured one (elsewhere any free port, which nothing else needs)
		boolean onConfiguredPort = environment.getProperty("sample.embedded-redis-on-configured-port", Boolean.class,
				false) && isLocal(host);
		if (configured && !onConfiguredPort) {
			// a configured Redis that is still starting (or briefly away) is the one the
			// application must use: an embedded one would silently take its place
			Duration wait = DurationStyle.detectAndParse(environment.getProperty("sample.redis-wait", "30s"));
			this.logger.info("No Redis answers at " + host + ":" + port + " yet; waiting up to " + wait);
			if (awaitReachable(host, port, wait)) {
				return;
			}
			throw new IllegalStateException("No Redis answers at " + host + ":" + port + " (spring.data.redis.*) after "
					+ wait + ": start it, or remove spring.data.redis.* to run the "
					+ "sample on an embedded Redis (sample.redis-wait sets how long start-up waits)");
		}
		RedisServer server = start(onConfiguredPort ? port : 0);
		this.logger.info("No Redis answers at " + host + ":" + port + "; using an embedded Redis " + server.version()
				+ " on port " + server.port());
		environment.getPropertySources()
			.addFirst(new MapPropertySource("embeddedRedis", Map.of(HOST, RedisServer.HOST, PORT, server.port(), URL,
					"redis://" + RedisServer.HOST + ":" + server.port())));
	}

	private static boolean awaitReachable(String host, int port, Duration wait) {
		long deadline = System.nanoTime() + wait.toNanos();
		while (!isReachable(host, port)) {
			if (System.nanoTime() - deadline >= 0) {
				return false;
			}
			try {
				Thread.sleep(100);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return false;
			}
		}
		return true;
	}

	private static synchronized RedisServer start(int port) {
		// one server per JVM, even when several application contexts start (tests,
		// devtools)
		if (embedded == null) {
			RedisServer server = (port > 0) ? RedisServers.startStandalone(port) : RedisServers.startStandalone();
			Runtime.getRuntime().addShutdownHook(new Thread(server::close, "embedded-redis-shutdown"));
			embedded = server;
		}
		return embedded;
	}

	private static boolean isLocal(String host) {
		return "localhost".equals(host) || "127.0.0.1".equals(host) || "::1".equals(host);
	}

	private static boolean isReachable(String host, int port) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(host, port), 300);
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

	@Override
	public int getOrder() {
		return Ordered.LOWEST_PRECEDENCE;
	}

}
