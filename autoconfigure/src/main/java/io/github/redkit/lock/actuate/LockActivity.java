package io.github.redkit.lock.actuate;

import java.util.List;

import io.github.redkit.actuate.RedkitEndpointActivity;
import io.github.redkit.lock.internal.LockMeters;

/**
 * Lock acquisition attempts in the endpoint's activity, by the lock's name and outcome.
 */
final class LockActivity implements RedkitEndpointActivity {

	@Override
	public String name() {
		return "locks";
	}

	@Override
	public String nameTag() {
		return "name";
	}

	@Override
	public List<String> meters() {
		return List.of(LockMeters.ACQUIRE.name());
	}

}
