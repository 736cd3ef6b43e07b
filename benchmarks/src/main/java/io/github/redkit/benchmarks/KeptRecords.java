package io.github.redkit.benchmarks;

import java.util.ArrayList;
import java.util.List;

import io.github.redkit.testsupport.RedisServer;
import io.github.redkit.testsupport.RespClient;

/**
 * The Redis memory of the records a contender keeps per operation, two ways:
 * {@code MEMORY USAGE} of a sample of them (the key, its object and its value), and the
 * growth of {@code used_memory} over the number of keys added (the expiry's entry and the
 * hash tables' buckets included).
 *
 * @param usageBytes the sum of {@code MEMORY USAGE} over the sampled records
 * @param sampled how many records were sampled
 * @param growthBytes how much {@code used_memory} grew
 * @param kept how many keys were added meanwhile
 */
record KeptRecords(long usageBytes, long sampled, long growthBytes, long kept) {

	static final KeptRecords NONE = new KeptRecords(0, 0, 0, 0);

	private static final int SAMPLE = 200;

	/**
	 * Where memory and keys stood before the contender ran.
	 *
	 * @param usedMemory {@code used_memory}
	 * @param keys {@code DBSIZE}
	 */
	record Before(long usedMemory, long keys) {

		static Before of(RedisServer redis) {
			try (RespClient admin = redis.client(redis.port())) {
				return new Before(readUsedMemory(admin), readDbSize(admin));
			}
		}

	}

	static KeptRecords since(RedisServer redis, Before before, String pattern) {
		try (RespClient admin = redis.client(redis.port())) {
			long growth = readUsedMemory(admin) - before.usedMemory();
			long kept = readDbSize(admin) - before.keys();
			long usage = 0;
			List<String> sample = sample(admin, pattern);
			for (String key : sample) {
				usage += (Long) StoredKeys.call(admin, "MEMORY", "USAGE", key, "SAMPLES", "0");
			}
			return new KeptRecords(usage, sample.size(), growth, kept);
		}
	}

	KeptRecords plus(KeptRecords other) {
		return new KeptRecords(this.usageBytes + other.usageBytes, this.sampled + other.sampled,
				this.growthBytes + other.growthBytes, this.kept + other.kept);
	}

	double usagePerRecord() {
		return (this.sampled > 0) ? (double) this.usageBytes / this.sampled : Double.NaN;
	}

	double growthPerRecord() {
		return (this.kept > 0) ? (double) this.growthBytes / this.kept : Double.NaN;
	}

	private static List<String> sample(RespClient admin, String pattern) {
		List<String> keys = new ArrayList<>();
		String cursor = "0";
		do {
			List<?> reply = (List<?>) StoredKeys.call(admin, "SCAN", cursor, "MATCH", pattern, "COUNT", "1000");
			cursor = reply.get(0).toString();
			for (Object key : (List<?>) reply.get(1)) {
				if (keys.size() < SAMPLE) {
					keys.add(key.toString());
				}
			}
		}
		while (!cursor.equals("0") && keys.size() < SAMPLE);
		return keys;
	}

	// what the allocator handed out, without the pages jemalloc keeps for later
	private static long readUsedMemory(RespClient admin) {
		return admin.callForString("INFO", "memory")
			.lines()
			.filter((line) -> line.startsWith("used_memory:"))
			.map((line) -> Long.parseLong(line.substring("used_memory:".length()).trim()))
			.findFirst()
			.orElseThrow();
	}

	private static long readDbSize(RespClient admin) {
		return (Long) StoredKeys.call(admin, "DBSIZE");
	}

}
