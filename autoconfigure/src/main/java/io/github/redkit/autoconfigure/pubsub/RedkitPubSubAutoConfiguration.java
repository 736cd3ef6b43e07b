package io.github.redkit.autoconfigure.pubsub;

import java.util.List;

import io.github.redkit.actuate.RedkitEndpoint;
import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.autoconfigure.actuate.RedkitEndpointProperties;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.pubsub.ChannelPublisher;
import io.github.redkit.pubsub.ControlStateListener;
import io.github.redkit.pubsub.actuate.ControlEndpointSection;
import io.github.redkit.pubsub.internal.ControlStateHealthIndicator;
import io.github.redkit.pubsub.internal.ControlStateSubscription;
import io.github.redkit.pubsub.internal.JsonChannelPublisher;
import io.github.redkit.pubsub.internal.RedisControlState;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

/**
 * Redkit's pub/sub: {@link ChannelPublisher} (JSON), {@link RedisControlState} and, when
 * the application has {@link ControlStateListener} beans, the subscription that keeps
 * them in step (on Spring Boot's {@link RedisMessageListenerContainer}), with a health
 * indicator and metrics.
 */
@AutoConfiguration(after = RedkitAutoConfiguration.class)
@ImportRuntimeHints(PubSubRuntimeHints.class)
@ConditionalOnClass({ JsonMapper.class, RedisMessageListenerContainer.class })
@ConditionalOnBean(RedisScriptRunner.class)
@ConditionalOnBooleanProperty(name = "redkit.pubsub.enabled", matchIfMissing = true)
@EnableConfigurationProperties(RedkitPubSubProperties.class)
public final class RedkitPubSubAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	ChannelPublisher redkitChannelPublisher(RedisScriptRunner runner, ObjectProvider<JsonMapper> mapper,
			RedkitMetrics metrics, ObjectProvider<RedkitObservations> observations) {
		return new JsonChannelPublisher(runner.template(), mapper.getIfAvailable(() -> JsonMapper.builder().build()),
				metrics, observations.getIfAvailable(() -> RedkitObservations.NONE));
	}

	@Bean
	@ConditionalOnMissingBean
	RedisControlState redkitControlState(RedisScriptRunner runner, RedisKeyspace keyspace,
			RedkitPubSubProperties properties) {
		RedkitPubSubProperties.Control control = RedkitPubSubPropertiesMapper.control(properties);
		String channel = RedkitPubSubPropertiesMapper.channel(control, keyspace);
		return new RedisControlState(runner, keyspace, channel, control.getStateTtl(), control.getAckTtl());
	}

	@Bean
	@ConditionalOnMissingBean(RedisMessageListenerContainer.class)
	@ConditionalOnBean(ControlStateListener.class)
	RedisMessageListenerContainer redkitListenerContainer(RedisScriptRunner runner) {
		RedisMessageListenerContainer container = new RedisMessageListenerContainer();
		container.setConnectionFactory(runner.connectionFactory());
		return container;
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(ControlStateListener.class)
	ControlStateSubscription redkitControlStateSubscription(RedisMessageListenerContainer container,
			RedisControlState state, List<ControlStateListener> listeners, ObjectProvider<JsonMapper> mapper,
			RedkitMetrics metrics, RedkitPubSubProperties properties, Environment environment) {
		RedkitPubSubProperties.Control control = properties.getControl();
		String subscriberId = (control.getSubscriberId() != null) ? control.getSubscriberId()
				: defaultSubscriberId(environment);
		return new ControlStateSubscription(container, state, listeners,
				mapper.getIfAvailable(() -> JsonMapper.builder().build()), metrics, subscriberId,
				control.getAckTtl().dividedBy(3));
	}

	private static String defaultSubscriberId(Environment environment) {
		String host = System.getenv("HOSTNAME");
		if (host == null || host.isBlank()) {
			host = "localhost";
		}
		return environment.getProperty("spring.application.name", "application") + "@" + host + ":"
				+ ProcessHandle.current().pid();
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(HealthIndicator.class)
	static class PubSubHealthConfiguration {

		@Bean
		@ConditionalOnMissingBean(name = "redkitControlStateHealthIndicator")
		@ConditionalOnBean(ControlStateListener.class)
		ControlStateHealthIndicator redkitControlStateHealthIndicator(ControlStateSubscription subscription) {
			return new ControlStateHealthIndicator(subscription);
		}

	}

	// the capability's section of the redkit endpoint, when the endpoint is available
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
	@ConditionalOnAvailableEndpoint(RedkitEndpoint.class)
	@EnableConfigurationProperties(RedkitEndpointProperties.class)
	static final class ControlEndpointConfiguration {

		@Bean
		@ConditionalOnMissingBean
		// the section lists the groups by the keys RedisControlState writes: it reads
		// them
		// through Redkit's own, whatever other ControlState the application has
		ControlEndpointSection redkitControlEndpointSection(RedisControlState controlState, RedisScriptRunner runner,
				RedisKeyspace keyspace, RedkitEndpointProperties endpoint) {
			return new ControlEndpointSection(controlState, runner.connectionFactory(), keyspace,
					endpoint.toSettings());
		}

	}

}
