package io.github.redkit.region.internal;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.github.redkit.core.internal.RedisScriptRunner;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Health of several regions: DOWN only when this region's Redis does not answer, since
 * decisions stay local; each peer's replication (state, lag, re-seed, last failure) is
 * reported in the details, so a region that is away or lagging is seen but never takes
 * this one out of service.
 */
public class RegionHealthIndicator extends AbstractHealthIndicator {

	private final RegionReplicators replicators;

	private final RedisConnectionFactory local;

	private final Duration timeout;

	// at most one PING in flight: a frozen Redis holds one thread, not one per check
	private @Nullable CompletableFuture<String> ping;

	/**
	 * Creates the indicator with a {@code PING} timeout of one second.
	 * @param replicators one replicator per peer region
	 * @param local this region's Redis
	 */
	public RegionHealthIndicator(RegionReplicators replicators, RedisConnectionFactory local) {
		this(replicators, local, Duration.ofSeconds(1));
	}

	/**
	 * Creates the indicator.
	 * @param replicators one replicator per peer region
	 * @param local this region's Redis
	 * @param timeout the longest wait for this region's Redis to answer {@code PING},
	 * shorter than the client's command timeout so that a frozen Redis reports DOWN
	 * quickly
	 */
	public RegionHealthIndicator(RegionReplicators replicators, RedisConnectionFactory local, Duration timeout) {
		super("Regions health check failed");
		this.replicators = replicators;
		this.local = local;
		this.timeout = timeout;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		builder.withDetail("peers", this.replicators.peerStates());
		try {
			ping().get(this.timeout.toMillis(), TimeUnit.MILLISECONDS);
			builder.up();
		}
		catch (TimeoutException ex) {
			builder.down().withDetail("error", "This region's Redis did not answer PING within " + this.timeout);
		}
		catch (ExecutionException ex) {
			builder.down((ex.getCause() != null) ? ex.getCause() : ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			builder.down(ex);
		}
	}

	private synchronized CompletableFuture<String> ping() {
		CompletableFuture<String> ping = this.ping;
		if (ping == null || ping.isDone()) {
			ping = CompletableFuture.supplyAsync(() -> {
				try (RedisConnection connection = this.local.getConnection()) {
					return String.valueOf(connection.ping());
				}
			}, RedisScriptRunner.blockingSteps());
			this.ping = ping;
		}
		return ping;
	}

}
