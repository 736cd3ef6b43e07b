package io.github.redkit.test.boot;

import java.util.LinkedHashMap;
import java.util.Map;

import io.github.redkit.testsupport.RedisServer;
import io.github.redkit.testsupport.RedisServers;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.test.context.MergedContextConfiguration;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.util.ClassUtils;

/**
 * Starts (once per JVM) the Redis of a {@link RedkitTest}, puts its address first in the
 * environment, and registers its connection details and a {@link RedkitTestRedis}.
 * Customizers of the same topology are equal, so their contexts are cached and shared.
 */
final class RedkitTestContextCustomizer implements ContextCustomizer {

	static final String PROPERTY_SOURCE = "redkitTestRedis";

	private static final String CONNECTION_DETAILS = "org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails";

	private final boolean cluster;

	RedkitTestContextCustomizer(boolean cluster) {
		this.cluster = cluster;
	}

	@Override
	public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration mergedConfig) {
		RedisServer server = this.cluster ? RedisServers.cluster() : RedisServers.standalone();
		Map<String, Object> properties = new LinkedHashMap<>();
		for (String property : server.springProperties()) {
			int equals = property.indexOf('=');
			properties.put(property.substring(0, equals), property.substring(equals + 1));
		}
		context.getEnvironment().getPropertySources().addFirst(new MapPropertySource(PROPERTY_SOURCE, properties));
		BeanDefinitionRegistry registry = (BeanDefinitionRegistry) context.getBeanFactory();
		if (ClassUtils.isPresent(CONNECTION_DETAILS, context.getClassLoader())) {
			// what @ServiceConnection does for a container: the connection details win
			// over
			// any spring.data.redis.* the application's own files set
			registry.registerBeanDefinition("redkitTestRedisConnectionDetails", new RootBeanDefinition(
					TestRedisConnectionDetails.class, () -> new TestRedisConnectionDetails(server)));
		}
		registry.registerBeanDefinition("redkitTestRedis",
				new RootBeanDefinition(RedkitTestRedis.class, () -> new RedkitTestRedis(server, context)));
	}

	@Override
	public boolean equals(@Nullable Object other) {
		return other instanceof RedkitTestContextCustomizer customizer && customizer.cluster == this.cluster;
	}

	@Override
	public int hashCode() {
		return Boolean.hashCode(this.cluster);
	}

}
