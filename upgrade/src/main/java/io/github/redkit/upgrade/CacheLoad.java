package io.github.redkit.upgrade;

/**
 * Reads one cache key a tenth of a second long (a fresh key every 100 ms, so that a
 * missing value is loaded again and again while both versions call), through the
 * {@code @Cacheable(sync = true)} method: each read is written with the value answered.
 */
final class CacheLoad {

	private final CachedValues values;

	private final HistoryLog history;

	CacheLoad(CachedValues values, HistoryLog history) {
		this.values = values;
		this.history = history;
	}

	void step() {
		String key = "k" + HistoryLog.micros() / 100_000;
		this.history.call("cache", "get", key, () -> this.values.value(key), (value, fields) -> {
			fields.put("outcome", "ok");
			fields.put("value", value);
		});
	}

}
