package io.github.redkit.autoconfigure.region;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import io.github.redkit.core.ServerNeed;
import io.github.redkit.core.ServerNeeds;
import io.github.redkit.actuate.RedkitEndpoint;
import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.autoconfigure.ratelimit.RateLimitProperties;
import io.github.redkit.autoconfigure.ratelimit.RateLimitProperties;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.core.internal.ReplayWindow;
import io.github.redkit.region.RegionalBudgets;
import io.github.redkit.region.RegionalCounters;
import io.github.redkit.region.actuate.GlobalRateLimitEndpointCounters;
import io.github.redkit.region.actuate.RegionEndpointSection;
import io.github.redkit.region.internal.GlobalRateLimitDecider;
import io.github.redkit.region.internal.RedisRegionalBudgets;
import io.github.redkit.region.internal.RedisRegionalCounters;
import io.github.redkit.region.internal.RegionHealthIndicator;
import io.github.redkit.region.internal.RegionOutbox;
import io.github.redkit.region.internal.RegionReplicator;
import io.github.redkit.region.internal.RegionReplicators;
import io.github.redkit.region.internal.RegionRounds;
import io.github.redkit.region.internal.RegionShipping;
import io.github.redkit.region.internal.RegionalBudgetSettings;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Several regions: {@link RegionalCounters}, {@link RegionalBudgets} and the
 * {@link RegionOutbox} that global rate limits count through, on the local Redis, and one
 * {@link RegionReplicator} per peer region, only when {@code redkit.regions.local} is
 * set.
 */
@AutoConfiguration(after = RedkitAutoConfiguration.class)
@ConditionalOnBean(RedisScriptRunner.class)
@ConditionalOnProperty("redkit.regions.local")
@EnableConfigurationProperties(RegionProperties.class)
public final class RegionAutoConfiguration {

	// what the server doctor checks for this capability
	@Bean
	@ConditionalOnMissingBean(name = "redkitRegionsServerNeeds")
	ServerNeeds redkitRegionsServerNeeds() {
		return ServerNeeds.of("regions", ServerNeed.NO_EVICTION, ServerNeed.PERSISTENCE);
	}

	@Bean
	@ConditionalOnMissingBean
	RegionalCounters redkitRegionalCounters(RedisScriptRunner runner, RedisKeyspace keyspace,
			RegionProperties properties, ObjectProvider<RedisConnectionFactory> connectionFactory) {
		String local = RegionPropertiesChecks.checked(properties);
		RedisRegionalCounters counters = new RedisRegionalCounters(runner, keyspace, local,
				properties.getOutbox().getMaxLength(), properties.getOutbox().getShards(), properties.getTimeout());
		// until when Lettuce may send an increment again: how long its generated id is
		// kept
		counters.setCommandTimeout(ReplayWindow.commandTimeout(connectionFactory.getIfAvailable()));
		return counters;
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnReplicated("budgets")
	RegionalBudgets redkitRegionalBudgets(RedisScriptRunner runner, RedisKeyspace keyspace, RegionProperties properties,
			RegionReplicators replicators, RedkitMetrics metrics,
			ObjectProvider<RedisConnectionFactory> connectionFactory) {
		String local = RegionPropertiesChecks.checked(properties);
		RegionalBudgetSettings settings = new RegionalBudgetSettings(properties.getOutbox().getMaxLength(),
				properties.getOutbox().getShards(), properties.getBudgets().getOperationTtl(), properties.getTimeout());
		RedisRegionalBudgets budgets = new RedisRegionalBudgets(runner, replicators.peerRunners(), keyspace, local,
				settings, metrics);
		// until when Lettuce may send a spend again: how long a generated id is kept
		budgets.setCommandTimeout(ReplayWindow.commandTimeout(connectionFactory.getIfAvailable()));
		return budgets;
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnReplicated("rate-limits")
	GlobalRateLimitDecider redkitGlobalRateLimitDecider(RedisScriptRunner runner, RegionOutbox outbox,
			ObjectProvider<RateLimitProperties> rateLimits) {
		RateLimitProperties limits = rateLimits.getIfAvailable();
		return new GlobalRateLimitDecider(runner, outbox, (limits != null) ? limits.globalLimitNames() : Set.of());
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnReplicated("rate-limits")
	RegionOutbox redkitRegionOutbox(RedisKeyspace keyspace, RegionProperties properties) {
		return new RegionOutbox(keyspace, RegionPropertiesChecks.checked(properties),
				properties.getOutbox().getMaxLength(), properties.getOutbox().getShards());
	}

	@Bean
	@ConditionalOnMissingBean
	RegionReplicators redkitRegionReplicators(RedisScriptRunner runner, RedisKeyspace keyspace,
			RegionProperties properties, RedkitMetrics metrics) {
		String local = RegionPropertiesChecks.checked(properties);
		List<RegionReplicator> replicators = new ArrayList<>();
		List<AutoCloseable> connections = new ArrayList<>();
		try {
			Map<String, RedisScriptRunner> remotes = new LinkedHashMap<>();
			for (Map.Entry<String, RegionProperties.Peer> peer : properties.getPeers().entrySet()) {
				LettuceConnectionFactory factory = PeerConnections.create(peer.getKey(), peer.getValue(),
						properties.getTimeout());
				connections.add(factory::destroy);
				RedisScriptRunner remote = new RedisScriptRunner(factory);
				// closed before its factory (the resources close in reverse order): it
				// gives
				// back what it kept of the factory's connections
				connections.add(remote::close);
				remotes.put(peer.getKey(), remote);
			}
			for (int shard = 0; shard < properties.getOutbox().getShards(); shard++) {
				RegionRounds rounds = new RegionRounds(properties.getReplication().getBatchSize(),
						properties.getReplication().getInterval(), properties.getTimeout());
				RegionShipping shipping = new RegionShipping(local, shard, runner, keyspace, rounds, metrics);
				replicators.addAll(RegionReplicator.toPeers(shipping, remotes));
			}
		}
		catch (RuntimeException ex) {
			new RegionReplicators(List.of(), connections).close();
			throw ex;
		}
		return new RegionReplicators(replicators, connections, metrics);
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(HealthIndicator.class)
	static class RegionHealthConfiguration {

		@Bean
		@ConditionalOnMissingBean(name = "redkitRegionsHealthIndicator")
		HealthIndicator redkitRegionsHealthIndicator(RegionReplicators replicators,
				RedisConnectionFactory connectionFactory, RegionProperties properties) {
			return new RegionHealthIndicator(replicators, connectionFactory, properties.getHealth().getTimeout());
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
	@ConditionalOnAvailableEndpoint(RedkitEndpoint.class)
	static class RegionEndpointConfiguration {

		@Bean
		@ConditionalOnMissingBean
		RegionEndpointSection redkitRegionsEndpointSection(RegionReplicators replicators, RegionProperties properties) {
			return new RegionEndpointSection(Objects.requireNonNull(properties.getLocal()), replicators);
		}

		// the rate-limit section reads and resets the limits marked global where they
		// count: in this region's outbox
		@Bean
		@ConditionalOnMissingBean
		@ConditionalOnReplicated("rate-limits")
		GlobalRateLimitEndpointCounters redkitGlobalRateLimitEndpointCounters(RedisScriptRunner runner,
				RegionOutbox outbox, ObjectProvider<RateLimitProperties> rateLimits) {
			RateLimitProperties limits = rateLimits.getIfAvailable();
			return new GlobalRateLimitEndpointCounters(runner, outbox,
					(limits != null) ? limits.globalLimitNames() : Set.of());
		}

	}

}
