package io.github.redkit.sample;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.util.Map;

import io.github.redkit.test.RedisServer;
import io.github.redkit.test.RedisServers;
import org.apache.commons.logging.Log;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.logging.DeferredLogFactory;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Starts a {@code redis-server} process (the one on the PATH, else the one shipped in
 * embedded-redis) when {@code spring.data.redis} points at a standalone Redis that does
 * not answer, so that the sample runs on a machine with only a JDK. Set
 * {@code sample.embedded-redis=false} to turn it off; a configured cluster or Sentinel is
 * always used as it is. It listens on any free port, or on the configured one with
 * {@code sample.embedded-redis-on-configured-port=true} (the {@code regions} profile).
 */
public class EmbeddedRedisEnvironmentPostProcessor implements EnvironmentPostProcessor, Ordered {

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
		String host = environment.getProperty("spring.data.redis.host", "localhost");
		int port = environment.getProperty("spring.data.redis.port", Integer.class, 6379);
		String url = environment.getProperty("spring.data.redis.url");
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
		RedisServer server = start(onConfiguredPort ? port : 0);
		this.logger.info("No Redis answers at " + host + ":" + port + "; using an embedded Redis " + server.version()
				+ " on port " + server.port());
		environment.getPropertySources()
			.addFirst(new MapPropertySource("embeddedRedis",
					Map.of("spring.data.redis.host", RedisServer.HOST, "spring.data.redis.port", server.port(),
							"spring.data.redis.url", "redis://" + RedisServer.HOST + ":" + server.port())));
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
