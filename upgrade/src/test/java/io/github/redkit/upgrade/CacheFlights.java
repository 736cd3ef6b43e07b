package io.github.redkit.upgrade;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * A {@code @Cacheable(sync = true)} value loaded once per key, under its single-flight
 * lock, whichever versions ask for it: per region, one load per key (the entry outlives
 * the run), and every read of a key answered the value that load returned. A run where no
 * value loaded by one version was read by the other while it loaded, both ways, tested
 * nothing: required of a fleet in one region only (in two, a region runs both versions
 * only while its slot is replaced, and a load lasts milliseconds; every other check
 * applies in each region).
 */
final class CacheFlights {

	private CacheFlights() {
	}

	static List<String> check(List<Entry> history, List<String> regions) {
		List<String> violations = new ArrayList<>();
		for (String region : regions) {
			Map<String, List<Entry>> loads = new LinkedHashMap<>();
			List<Entry> reads = new ArrayList<>();
			for (Entry entry : history) {
				if (!entry.capability().equals("cache") || !entry.region().equals(region)) {
					continue;
				}
				if (entry.op().equals("load")) {
					loads.computeIfAbsent(entry.key(), (key) -> new ArrayList<>()).add(entry);
				}
				else if (entry.op().equals("get") && entry.ok()) {
					reads.add(entry);
				}
			}
			loads.forEach((key, ofKey) -> {
				if (ofKey.size() > 1) {
					violations.add(region + ": " + key + " loaded " + ofKey.size() + " times: " + ofKey);
				}
			});
			Set<String> crossed = new TreeSet<>();
			for (Entry read : reads) {
				List<Entry> ofKey = loads.get(read.key());
				if (ofKey == null) {
					violations.add(region + ": " + read.key() + " read but never loaded: " + read);
					continue;
				}
				Entry load = ofKey.get(0);
				if (!load.text("value").equals(read.text("value"))) {
					violations.add(region + ": " + read.key() + " read as " + read.text("value") + ", loaded as "
							+ load.text("value") + ": " + read);
				}
				// a reader of the other version that asked while the value was loading
				// waited for the other's flight
				else if (!load.version().equals(read.version()) && read.start() < load.end()) {
					crossed.add(read.version() + " waited for " + load.version());
				}
			}
			// with two regions, one slot each, a region runs both versions only while its
			// slot is replaced: too short a time to require it there
			if (regions.size() == 1 && crossed.size() < 2) {
				violations.add(region + ": values loaded by one version and awaited by the other " + crossed
						+ ", not both ways: nothing tested");
			}
		}
		return violations;
	}

}
