package io.github.redkit.faults;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

import io.github.redkit.pubsub.ControlSnapshot;
import io.github.redkit.pubsub.ControlStateListener;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * The views of control state of one run, in this JVM: every snapshot each instance's
 * listeners applied, in the order they applied them. Every instance of a control-state
 * run follows each group with a listener that records here (broken on purpose behind
 * {@code faults.broken}); instances find the record by the run's id.
 */
final class ControlViews {

	private static final Map<String, ControlViews> RUNS = new ConcurrentHashMap<>();

	final List<View> views = new CopyOnWriteArrayList<>();

	private final Map<String, View> latest = new ConcurrentHashMap<>();

	private volatile History history;

	static ControlViews register(String run) {
		ControlViews views = new ControlViews();
		RUNS.put(run, views);
		return views;
	}

	static ControlViews of(String run) {
		return RUNS.get(run);
	}

	static void forget(String run) {
		RUNS.remove(run);
	}

	void bind(History history) {
		this.history = history;
	}

	long now() {
		History history = this.history;
		return (history != null) ? history.now() : Long.MIN_VALUE / 4;
	}

	void applied(int instance, String group, long version, String value) {
		View view = new View(instance, group, version, value, now());
		this.views.add(view);
		this.latest.put(instance + "/" + group, view);
	}

	/**
	 * What an instance's view of a group holds now.
	 */
	View latest(int instance, String group) {
		return this.latest.getOrDefault(instance + "/" + group, new View(instance, group, 0, "", 0));
	}

	/**
	 * One snapshot applied by an instance.
	 */
	record View(int instance, String group, long version, String value, long at) {

		@Override
		public String toString() {
			return String.format("i%d %s v%d n=%s [%.1f ms]", this.instance, this.group, this.version, this.value,
					this.at / 1e6);
		}

	}

	/**
	 * The listeners every instance of a control-state run adds, one per group.
	 */
	@Configuration(proxyBeanMethods = false)
	static class Listeners {

		@Bean
		ControlStateListener controlGroup0(Environment environment) {
			return listener(environment, ControlStateScenario.GROUPS.get(0));
		}

		@Bean
		ControlStateListener controlGroup1(Environment environment) {
			return listener(environment, ControlStateScenario.GROUPS.get(1));
		}

		@Bean
		ControlStateListener controlGroup2(Environment environment) {
			return listener(environment, ControlStateScenario.GROUPS.get(2));
		}

		private static ControlStateListener listener(Environment environment, String group) {
			ControlViews views = of(environment.getRequiredProperty("faults.run"));
			int instance = environment.getRequiredProperty("faults.instance", Integer.class);
			ControlStateScenario.Breakage breakage = environment.getProperty("faults.broken",
					ControlStateScenario.Breakage.class, ControlStateScenario.Breakage.NONE);
			AtomicLong calls = new AtomicLong();
			return new ControlStateListener() {

				@Override
				public String group() {
					return group;
				}

				@Override
				public void onControlState(ControlSnapshot snapshot) {
					long call = calls.incrementAndGet();
					if (breakage == ControlStateScenario.Breakage.STUCK_VIEW && call > 1) {
						// a view that never follows a change after its first read
						return;
					}
					if (breakage == ControlStateScenario.Breakage.BACKWARDS && call % 5 == 0) {
						// a view that applies its first version again after newer ones
						views.applied(instance, group, 0, "");
					}
					views.applied(instance, group, snapshot.version(), snapshot.get("n", ""));
				}

			};
		}

	}

}
