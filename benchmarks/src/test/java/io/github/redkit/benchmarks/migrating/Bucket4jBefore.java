package io.github.redkit.benchmarks.migrating;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

import io.github.bucket4j.Bucket;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.ConsumptionProbe;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.lettuce.core.RedisClient;

/**
 * The Bucket4j side of {@code docs/migrating/bucket4j.md}: its Lettuce proxy manager and
 * a bucket of two bandwidths per client address. Compiled against Bucket4j, not run.
 */
class Bucket4jBefore {

	private final ProxyManager<byte[]> buckets;

	private final BucketConfiguration configuration;

	Bucket4jBefore(RedisClient client) {
		// tag::proxy-manager[]
		ProxyManager<byte[]> buckets = Bucket4jLettuce.casBasedBuilder(client)
			.expirationAfterWrite(
					ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(Duration.ofSeconds(10)))
			.build();
		BucketConfiguration configuration = BucketConfiguration.builder()
			.addLimit((limit) -> limit.capacity(100).refillGreedy(100, Duration.ofMinutes(1)))
			.addLimit((limit) -> limit.capacity(1000).refillGreedy(1000, Duration.ofHours(1)))
			.build();
		// end::proxy-manager[]
		this.buckets = buckets;
		this.configuration = configuration;
	}

	String consume(String ip) {
		// tag::consume[]
		Bucket bucket = buckets.builder().build(("api-" + ip).getBytes(StandardCharsets.UTF_8), () -> configuration);
		ConsumptionProbe probe = bucket.tryConsumeAndReturnRemaining(1);
		if (!probe.isConsumed()) {
			return "retry after " + Duration.ofNanos(probe.getNanosToWaitForRefill());
		}
		// end::consume[]
		return "ok";
	}

}
