package io.github.redkit.sample.analytics;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.ScanOptions;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.stereotype.Service;

/**
 * Seed 002: gives a TTL to the keys matching a pattern that have none, walking the
 * keyspace with {@code SCAN} (never {@code KEYS}) and sending one script per batch, so a
 * batch of keys costs one round trip instead of two per key.
 */
@Service
public class KeyMaintenance {

	private static final Log logger = LogFactory.getLog(KeyMaintenance.class);

	// TTL -1 = no expiry; keys that have one keep theirs
	private static final RedisScript<Long> EXPIRE_PERSISTENT = RedisScript.of("""
			local n = 0
			for _, key in ipairs(KEYS) do
			  if redis.call('TTL', key) == -1 then
			    redis.call('EXPIRE', key, ARGV[1])
			    n = n + 1
			  end
			end
			return n
			""", Long.class);

	private final StringRedisTemplate redis;

	public KeyMaintenance(StringRedisTemplate redis) {
		this.redis = redis;
	}

	public Map<String, Object> expirePersistentKeys(String pattern, long ttlSeconds, int batchSize) {
		List<Map<String, Long>> progress = new ArrayList<>();
		long scanned = 0;
		long updated = 0;
		List<String> batch = new ArrayList<>(batchSize);
		try (Cursor<String> cursor = this.redis
			.scan(ScanOptions.scanOptions().match(pattern).count(batchSize).build())) {
			while (cursor.hasNext()) {
				batch.add(cursor.next());
				if (batch.size() == batchSize || !cursor.hasNext()) {
					long changed = this.redis.execute(EXPIRE_PERSISTENT, batch, Long.toString(ttlSeconds));
					scanned += batch.size();
					updated += changed;
					progress.add(Map.of("batch", (long) progress.size() + 1, "scanned", scanned, "updated", updated));
					logger.info("TTL maintenance '" + pattern + "': " + scanned + " keys scanned, " + updated
							+ " given a TTL");
					batch.clear();
				}
			}
		}
		Map<String, Object> report = new LinkedHashMap<>();
		report.put("pattern", pattern);
		report.put("ttlSeconds", ttlSeconds);
		report.put("scanned", scanned);
		report.put("updated", updated);
		report.put("batches", progress);
		return report;
	}

}
