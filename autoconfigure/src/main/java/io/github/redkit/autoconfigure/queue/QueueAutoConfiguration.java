package io.github.redkit.autoconfigure.queue;

import java.time.Duration;
import java.util.function.Function;

import io.github.redkit.core.ServerNeed;
import io.github.redkit.core.ServerNeeds;
import io.github.redkit.actuate.RedkitEndpoint;
import io.github.redkit.autoconfigure.ConditionalOnRedkitReactive;
import io.github.redkit.autoconfigure.GaugeReads;
import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.autoconfigure.RedkitProperties;
import io.github.redkit.autoconfigure.actuate.RedkitEndpointProperties;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.queue.QueueListenerRegistry;
import io.github.redkit.queue.QueueSettings;
import io.github.redkit.queue.QueueStore;
import io.github.redkit.queue.QueueTemplate;
import io.github.redkit.queue.ReactiveQueueTemplate;
import io.github.redkit.queue.actuate.QueueEndpointSection;
import io.github.redkit.queue.internal.DefaultQueueListenerRegistry;
import io.github.redkit.queue.internal.DefaultReactiveQueueTemplate;
import io.github.redkit.queue.internal.QueueGauges;
import io.github.redkit.queue.internal.QueueKeys;
import io.github.redkit.queue.internal.QueueListenerContainerFactory;
import io.github.redkit.queue.internal.QueueListenerSettings;
import io.github.redkit.queue.internal.RedisQueueTemplate;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Queues: the {@link QueueTemplate}, the {@code @QueueListener} containers, the queue
 * metrics and, for reactive applications, the {@link ReactiveQueueTemplate}.
 */
@AutoConfiguration(after = RedkitAutoConfiguration.class)
@ImportRuntimeHints(QueueRuntimeHints.class)
@ConditionalOnBean(RedisScriptRunner.class)
@ConditionalOnClass(name = "tools.jackson.databind.json.JsonMapper")
@ConditionalOnBooleanProperty(name = "redkit.queue.enabled", matchIfMissing = true)
@EnableConfigurationProperties(QueueProperties.class)
public final class QueueAutoConfiguration {

	// what the server doctor checks for this capability
	@Bean
	@ConditionalOnMissingBean(name = "redkitQueueServerNeeds")
	ServerNeeds redkitQueueServerNeeds() {
		return ServerNeeds.of("queue", ServerNeed.NO_EVICTION, ServerNeed.PERSISTENCE, ServerNeed.REPLICATED_WRITES);
	}

	/** The first wait of a reactive consumer on an empty queue. */
	private static final Duration MIN_POLL = Duration.ofMillis(10);

	/**
	 * Mapped once: templates and consumers look settings up, they never build them.
	 */
	private final Function<String, QueueSettings> settings;

	QueueAutoConfiguration(QueueProperties properties) {
		this.settings = QueuePropertiesMapper.map(properties);
	}

	@Bean
	@ConditionalOnMissingBean(QueueTemplate.class)
	RedisQueueTemplate redkitQueueTemplate(RedisScriptRunner runner, RedisKeyspace keyspace,
			ObjectProvider<JsonMapper> jsonMapper, RedkitMetrics metrics,
			ObjectProvider<RedkitObservations> observations) {
		return new RedisQueueTemplate(runner, keyspace, jsonMapper(jsonMapper), this.settings, metrics,
				observations.getIfAvailable(() -> RedkitObservations.NONE));
	}

	/**
	 * Checks, once the beans are ready and before any listener starts, each queue of the
	 * stream store: a server older than Redis 6.2 fails start-up naming the property and
	 * the version (once for the default store, which may hold queues no property names);
	 * for a queue that reads a stream another application writes (and creates its group
	 * when asked), a key that is not a stream, or a missing group, too.
	 */
	@Bean
	@ConditionalOnMissingBean(name = "redkitQueueExistingStreams")
	SmartInitializingSingleton redkitQueueExistingStreams(ObjectProvider<QueueTemplate> template,
			QueueProperties properties) {
		return () -> {
			if (template.getIfAvailable() instanceof RedisQueueTemplate redis) {
				if (properties.getDefaults().getStore() == QueueStore.STREAM) {
					// the queues no property names are streams too
					redis.requireStreamServer("redkit.queue.defaults.store=stream");
				}
				properties.getQueues().keySet().forEach(redis::prepareStreamQueue);
			}
		};
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(QueueTemplate.class)
	QueueListenerContainerFactory redkitQueueListenerContainerFactory(QueueTemplate template,
			RedisConnectionFactory connectionFactory, RedisKeyspace keyspace, ObjectProvider<JsonMapper> jsonMapper,
			RedkitMetrics metrics, QueueProperties properties, ObjectProvider<RedkitObservations> observations) {
		return new QueueListenerContainerFactory(template,
				new QueueListenerSettings(this.settings, properties.getPollTimeout(), properties.getShutdownTimeout()),
				connectionFactory, keyspace, jsonMapper(jsonMapper), metrics,
				observations.getIfAvailable(() -> RedkitObservations.NONE));
	}

	@Bean
	@ConditionalOnMissingBean(QueueListenerRegistry.class)
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static DefaultQueueListenerRegistry redkitQueueListenerRegistry(Environment environment,
			ObjectProvider<QueueListenerContainerFactory> factory) {
		return new DefaultQueueListenerRegistry(environment, factory);
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnRedkitReactive
	static class ReactiveQueueConfiguration {

		// the reactive face runs on Redkit's own template's asynchronous calls: an
		// application with a QueueTemplate of its own defines its ReactiveQueueTemplate
		// too (the nested class is registered before the outer beans, so a condition on
		// the template's type could not see it)
		@Bean
		@ConditionalOnMissingBean
		ReactiveQueueTemplate redkitReactiveQueueTemplate(QueueTemplate template, QueueProperties properties) {
			if (!(template instanceof RedisQueueTemplate redis)) {
				throw new IllegalStateException(
						"The reactive QueueTemplate face needs Redkit's RedisQueueTemplate, not "
								+ template.getClass().getName()
								+ ": define a ReactiveQueueTemplate bean or set redkit.reactive.enabled=false");
			}
			Duration maxPoll = properties.getPollTimeout();
			return new DefaultReactiveQueueTemplate(redis, MIN_POLL.compareTo(maxPoll) < 0 ? MIN_POLL : maxPoll,
					maxPoll);
		}

	}

	private static JsonMapper jsonMapper(ObjectProvider<JsonMapper> jsonMapper) {
		return jsonMapper.getIfAvailable(() -> JsonMapper.builder().build());
	}

	@Bean
	@ConditionalOnMissingBean
	QueueGauges redkitQueueGauges(RedkitMetrics metrics, QueueTemplate template, QueueProperties properties,
			RedkitProperties redkit) {
		QueueGauges gauges = new QueueGauges(template, properties.getQueues().keySet(),
				GaugeReads.of(redkit, "redkit-queue-gauges"));
		gauges.bindTo(metrics);
		return gauges;
	}

	// the capability's section of the redkit endpoint, when the endpoint is available
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
	@ConditionalOnAvailableEndpoint(RedkitEndpoint.class)
	@EnableConfigurationProperties(RedkitEndpointProperties.class)
	static final class QueueEndpointConfiguration {

		@Bean
		@ConditionalOnMissingBean
		QueueEndpointSection redkitQueueEndpointSection(QueueTemplate template, QueueProperties properties,
				RedisScriptRunner runner, RedisKeyspace keyspace, RedkitEndpointProperties endpoint) {
			Function<String, QueueSettings> settings = QueuePropertiesMapper.map(properties);
			return new QueueEndpointSection(template, properties.getQueues().keySet(), runner.connectionFactory(),
					(queue) -> QueueKeys.of(keyspace, queue, settings.apply(queue)), endpoint.toSettings());
		}

	}

}
