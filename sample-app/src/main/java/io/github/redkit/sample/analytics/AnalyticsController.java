package io.github.redkit.sample.analytics;

import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.redkit.sample.web.AdminGuard;
import io.github.redkit.sample.web.ApiException;
import io.github.redkit.sample.web.Validation;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Analytics for everyone (counters, visits per minute, the event log), TTL maintenance
 * for admins.
 */
@RestController
class AnalyticsController {

	// the largest 13-digit time whose next millisecond still has 13 digits
	private static final long LAST_TIME = 9_999_999_999_998L;

	private final Analytics analytics;

	private final VisitsPerMinute visitsPerMinute;

	private final EventLog events;

	private final KeyMaintenance maintenance;

	private final AdminGuard admin;

	AnalyticsController(Analytics analytics, VisitsPerMinute visitsPerMinute, EventLog events,
			KeyMaintenance maintenance, AdminGuard admin) {
		this.analytics = analytics;
		this.visitsPerMinute = visitsPerMinute;
		this.events = events;
		this.maintenance = maintenance;
		this.admin = admin;
	}

	@GetMapping("/api/analytics")
	Map<String, Object> summary(@RequestParam(defaultValue = "10") int minutes) {
		if (minutes < 1 || minutes > 60) {
			throw ApiException.badRequest("'minutes' must be between 1 and 60");
		}
		return this.analytics.summary(minutes);
	}

	@GetMapping("/api/analytics/visits")
	Map<String, Object> visits(@RequestParam(required = false) String day, @RequestParam(defaultValue = "0") int from,
			@RequestParam(defaultValue = "1439") int to) {
		LocalDate date;
		try {
			date = (day != null) ? LocalDate.parse(day, VisitsPerMinute.DAY) : LocalDate.now(ZoneOffset.UTC);
		}
		catch (DateTimeParseException ex) {
			throw ApiException.badRequest("'day' must be yyyyMMdd");
		}
		if (from < 0 || to >= VisitsPerMinute.MINUTES || from > to) {
			throw ApiException.badRequest("'from' and 'to' must be minutes of the day, 0..1439, from <= to");
		}
		int[] counts = this.visitsPerMinute.counts(date, from, to);
		Map<String, Object> visits = new LinkedHashMap<>();
		visits.put("day", VisitsPerMinute.DAY.format(date));
		visits.put("from", from);
		visits.put("to", to);
		visits.put("total", Arrays.stream(counts).sum());
		visits.put("perMinute", counts);
		return visits;
	}

	@GetMapping("/api/analytics/events")
	Map<String, Object> events(@RequestParam(required = false) Long from, @RequestParam(required = false) Long to,
			@RequestParam(defaultValue = "100") int limit) {
		long end = (to != null) ? to : System.currentTimeMillis();
		long start = (from != null) ? from : end - 3_600_000;
		if (start < 0 || end > LAST_TIME || start > end || limit < 1 || limit > 1000) {
			throw ApiException.badRequest("'from' <= 'to' must be epoch millis and 'limit' 1..1000");
		}
		List<EventLog.Event> found = this.events.between(start, end, limit);
		Map<String, Object> events = new LinkedHashMap<>();
		events.put("from", start);
		events.put("to", end);
		events.put("count", this.events.count(start, end));
		events.put("events", found);
		return events;
	}

	@PostMapping("/api/admin/maintenance/expire")
	Map<String, Object> expire(@RequestHeader(value = "X-Admin-Token", required = false) String token,
			@RequestBody(required = false) ExpireRequest request) {
		this.admin.check(token);
		if (request == null) {
			throw ApiException.badRequest("Send {\"pattern\": \"...\", \"ttlSeconds\": n, \"batchSize\": n}");
		}
		String pattern = Validation.required("pattern", request.pattern(), 200);
		long ttl = Validation.positive("ttlSeconds", request.ttlSeconds(), 366L * 24 * 3600);
		long batch = Validation.positive("batchSize", (request.batchSize() != null) ? request.batchSize() : 500L,
				10_000);
		return this.maintenance.expirePersistentKeys(pattern, ttl, (int) batch);
	}

	record ExpireRequest(String pattern, Long ttlSeconds, Long batchSize) {
	}

}
