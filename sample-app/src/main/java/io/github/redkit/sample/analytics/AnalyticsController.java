package io.github.redkit.sample.analytics;

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
 * Analytics for everyone, TTL maintenance for admins.
 */
@RestController
class AnalyticsController {

	private final Analytics analytics;

	private final KeyMaintenance maintenance;

	private final AdminGuard admin;

	AnalyticsController(Analytics analytics, KeyMaintenance maintenance, AdminGuard admin) {
		this.analytics = analytics;
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
