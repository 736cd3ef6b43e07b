package io.github.redkit.cache.internal;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * The last values this instance read or wrote, kept in memory (least recently used out)
 * only for caches that serve a stale value when Redis fails. Such a value may have been
 * evicted or changed in Redis meanwhile: that is the documented trade-off.
 */
final class StaleValues {

	private final Map<String, byte[]> values;

	StaleValues(int maxEntries) {
		this.values = new LinkedHashMap<>(16, 0.75f, true) {

			@Override
			protected boolean removeEldestEntry(Map.Entry<String, byte[]> eldest) {
				return size() > maxEntries;
			}

		};
	}

	void remember(String cacheName, byte[] key, byte[] value) {
		if (value != null) {
			synchronized (this.values) {
				this.values.put(id(cacheName, key), value);
			}
		}
	}

	byte @Nullable [] recall(String cacheName, byte[] key) {
		synchronized (this.values) {
			return this.values.get(id(cacheName, key));
		}
	}

	void forget(String cacheName, byte[] key) {
		synchronized (this.values) {
			this.values.remove(id(cacheName, key));
		}
	}

	/**
	 * Forgets every value of one cache; the other caches keep theirs.
	 * @param cacheName the cache
	 */
	void forgetAll(String cacheName) {
		String prefix = cacheName + '\u0000';
		synchronized (this.values) {
			this.values.keySet().removeIf((id) -> id.startsWith(prefix));
		}
	}

	private static String id(String cacheName, byte[] key) {
		// ISO-8859-1 maps every byte to one char, so distinct keys stay distinct
		return cacheName + '\u0000' + new String(key, StandardCharsets.ISO_8859_1);
	}

}
