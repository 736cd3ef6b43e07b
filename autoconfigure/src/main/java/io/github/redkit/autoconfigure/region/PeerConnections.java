package io.github.redkit.autoconfigure.region;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.StringUtils;

/**
 * Builds the connection factory of a peer region from its URL, failing start-up with the
 * name of the property when the URL cannot work.
 */
final class PeerConnections {

	private PeerConnections() {
	}

	static LettuceConnectionFactory create(String peer, RegionProperties.Peer properties, Duration timeout) {
		String property = "redkit.regions.peers." + peer + ".url";
		String url = properties.getUrl();
		RedisStandaloneConfiguration standalone = standalone(property, url);
		if (StringUtils.hasText(properties.getPassword())) {
			standalone.setPassword(properties.getPassword());
		}
		LettuceClientConfiguration.LettuceClientConfigurationBuilder client = LettuceClientConfiguration.builder()
			.commandTimeout(timeout);
		if (url != null && url.startsWith("rediss:")) {
			client.useSsl();
		}
		LettuceConnectionFactory factory = new LettuceConnectionFactory(standalone, client.build());
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	static RedisStandaloneConfiguration standalone(String property, @Nullable String url) {
		if (!StringUtils.hasText(url)) {
			throw new IllegalStateException(property + " must be set");
		}
		URI uri;
		try {
			uri = new URI(url);
		}
		catch (URISyntaxException ex) {
			throw new IllegalStateException(property + " is not a valid URL: " + ex.getMessage(), ex);
		}
		if (!"redis".equals(uri.getScheme()) && !"rediss".equals(uri.getScheme())) {
			throw new IllegalStateException(property + " must start with redis:// or rediss://");
		}
		if (!StringUtils.hasText(uri.getHost())) {
			throw new IllegalStateException(property + " has no host");
		}
		RedisStandaloneConfiguration standalone = new RedisStandaloneConfiguration(uri.getHost(),
				(uri.getPort() > 0) ? uri.getPort() : 6379);
		String userInfo = uri.getUserInfo();
		if (userInfo != null) {
			int colon = userInfo.indexOf(':');
			if (colon >= 0) {
				if (colon > 0) {
					standalone.setUsername(userInfo.substring(0, colon));
				}
				standalone.setPassword(userInfo.substring(colon + 1));
			}
			else {
				standalone.setPassword(userInfo);
			}
		}
		String path = uri.getPath();
		if (path != null && path.length() > 1) {
			try {
				standalone.setDatabase(Integer.parseInt(path.substring(1)));
			}
			catch (NumberFormatException ex) {
				throw new IllegalStateException(property + " names no database number", ex);
			}
		}
		return standalone;
	}

}
