package io.github.redkit.concurrency.actuate;

import java.util.List;

import io.github.redkit.actuate.RedkitEndpointActivity;
import io.github.redkit.concurrency.internal.ConcurrencyMeters;

/**
 * Concurrency-limit permits in the endpoint's activity, by limit and outcome.
 */
final class ConcurrencyActivity implements RedkitEndpointActivity {

	@Override
	public String name() {
		return "concurrency";
	}

	@Override
	public String nameTag() {
		return "limit";
	}

	@Override
	public List<String> meters() {
		return List.of(ConcurrencyMeters.PERMITS.name());
	}

}
