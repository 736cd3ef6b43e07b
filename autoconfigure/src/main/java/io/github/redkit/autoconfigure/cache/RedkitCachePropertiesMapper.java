package io.github.redkit.autoconfigure.cache;

import java.util.LinkedHashMap;
import java.util.Map;

import io.github.redkit.autoconfigure.DurationChecks;
import io.github.redkit.cache.CachePolicy;
import io.github.redkit.cache.CacheSpec;
import io.github.redkit.cache.internal.JitteredTtl;
import org.jspecify.annotations.Nullable;

/**
 * Turns {@link RedkitCacheProperties} into the prepared specs of the caches, once at
 * start-up: a cache's own settings win over the defaults. A value that cannot work fails
 * start-up with a message naming its property.
 */
final class RedkitCachePropertiesMapper {

	private static final String PREFIX = "redkit.cache";

	private RedkitCachePropertiesMapper() {
	}

	static double jitter(RedkitCacheProperties properties) {
		try {
			return JitteredTtl.parseJitter(properties.getTtlJitter());
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException(
					PREFIX + ".ttl-jitter must be a percentage in [0%, 100%) such as 10%: " + ex.getMessage());
		}
	}

	static CacheSpec defaults(RedkitCacheProperties properties) {
		check(properties);
		return new CacheSpec(properties.getDefaultTtl(), properties.isCacheNulls(), policy(properties, null));
	}

	static Map<String, CacheSpec> caches(RedkitCacheProperties properties) {
		Map<String, CacheSpec> caches = new LinkedHashMap<>();
		properties.getCaches().forEach((name, settings) -> {
			if (settings.getTtl() != null) {
				DurationChecks.notNegative(settings.getTtl(), PREFIX + ".caches." + name + ".ttl");
			}
			caches.put(name, new CacheSpec((settings.getTtl() != null) ? settings.getTtl() : properties.getDefaultTtl(),
					choose(settings.getCacheNulls(), properties.isCacheNulls()), policy(properties, settings)));
		});
		return caches;
	}

	private static void check(RedkitCacheProperties properties) {
		jitter(properties);
		DurationChecks.notNegative(properties.getDefaultTtl(), PREFIX + ".default-ttl");
		if (properties.getClearBatchSize() <= 0) {
			throw new IllegalArgumentException(PREFIX + ".clear-batch-size must be > 0");
		}
		DurationChecks.notNegative(properties.getSingleFlight().getWaitTime(), PREFIX + ".single-flight.wait-time");
		DurationChecks.positive(properties.getSingleFlight().getLease(), PREFIX + ".single-flight.lease");
		if (!(properties.getEarlyRefresh().getBeta() > 0)) {
			throw new IllegalArgumentException(PREFIX + ".early-refresh.beta must be > 0");
		}
		if (properties.getStaleOnError().getMaxEntries() <= 0) {
			throw new IllegalArgumentException(PREFIX + ".stale-on-error.max-entries must be > 0");
		}
	}

	private static CachePolicy policy(RedkitCacheProperties properties,
			RedkitCacheProperties.@Nullable CacheSettings settings) {
		boolean singleFlight = choose((settings != null) ? settings.getSingleFlight() : null,
				properties.getSingleFlight().isEnabled());
		boolean early = choose((settings != null) ? settings.getEarlyRefresh() : null,
				properties.getEarlyRefresh().isEnabled());
		boolean stale = choose((settings != null) ? settings.getStaleOnError() : null,
				properties.getStaleOnError().isEnabled());
		return new CachePolicy(singleFlight, properties.getSingleFlight().getWaitTime(),
				properties.getSingleFlight().getLease(), early ? properties.getEarlyRefresh().getBeta() : 0, stale);
	}

	private static boolean choose(@Nullable Boolean specific, boolean fallback) {
		return (specific != null) ? specific : fallback;
	}

}
