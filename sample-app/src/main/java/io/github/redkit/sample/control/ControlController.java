package io.github.redkit.sample.control;

import java.util.LinkedHashMap;
import java.util.Map;

import io.github.redkit.pubsub.ControlSnapshot;
import io.github.redkit.pubsub.ControlState;
import io.github.redkit.sample.web.AdminGuard;
import io.github.redkit.sample.web.ApiException;

import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.event.EventListener;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

/**
 * Admin: throttle, pause and resume the fan-out workers of every instance through the
 * durable control state, and see which instances applied which version.
 */
@RestController
class ControlController {

	private final ControlState controlState;

	private final FanOutControl control;

	private final FanOutThrottle throttle;

	private final AdminGuard admin;

	ControlController(ControlState controlState, FanOutControl control, FanOutThrottle throttle, AdminGuard admin) {
		this.controlState = controlState;
		this.control = control;
		this.throttle = throttle;
		this.admin = admin;
	}

	@GetMapping("/api/admin/fanout")
	Map<String, Object> state(@RequestHeader(value = "X-Admin-Token", required = false) String token) {
		this.admin.check(token);
		ControlSnapshot snapshot = this.controlState.read(FanOutControl.GROUP);
		Map<String, Object> body = new LinkedHashMap<>();
		body.put("version", snapshot.version());
		body.put("values", snapshot.values());
		body.put("acknowledgements", this.controlState.acknowledgements(FanOutControl.GROUP));
		body.put("runningHere", this.control.running());
		body.put("throttleHere", this.throttle.rate());
		return body;
	}

	@PostMapping("/api/admin/fanout")
	Map<String, Object> change(@RequestHeader(value = "X-Admin-Token", required = false) String token,
			@RequestBody(required = false) Change change) {
		this.admin.check(token);
		if (change == null || (change.run() == null && change.throttle() == null)) {
			throw ApiException.badRequest("Send {\"run\": true|false} and/or {\"throttle\": <per second, 0 = off>}");
		}
		Map<String, String> values = new LinkedHashMap<>();
		if (change.run() != null) {
			values.put("run", change.run().toString());
		}
		if (change.throttle() != null) {
			if (change.throttle() < 0 || change.throttle() > 100_000) {
				throw ApiException.badRequest("'throttle' must be between 0 and 100000");
			}
			values.put("throttle", change.throttle().toString());
		}
		long version = this.controlState.set(FanOutControl.GROUP, values);
		return Map.of("version", version, "values", values);
	}

	/** The state may say "paused" before the workers started: apply it once they run. */
	@EventListener(ApplicationReadyEvent.class)
	void applyAfterStart() {
		this.control.onControlState(this.controlState.read(FanOutControl.GROUP));
	}

	record Change(Boolean run, Long throttle) {
	}

}
