package io.github.redkit.core.internal;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import io.github.redkit.core.DefaultRedkitObservationConvention;
import io.github.redkit.core.RedkitDecisionContext;
import io.github.redkit.core.RedkitObservation;
import io.github.redkit.core.RedkitObservationContext;
import io.github.redkit.core.RedkitObservationConvention;
import io.github.redkit.core.RedkitObservationKind;
import io.github.redkit.core.RedkitObservations;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.util.Assert;

/**
 * {@link RedkitObservations} on a Micrometer {@link ObservationRegistry}. The registry is
 * looked up late ({@link LateLookup}), so that its auto-configuration may run after
 * Redkit's; without one, nothing is observed. Each kind's convention is the first of the
 * given ones that supports its context, else a
 * {@link DefaultRedkitObservationConvention}.
 */
public final class MicrometerRedkitObservations implements RedkitObservations, SmartInitializingSingleton {

	private final LateLookup<ObservationRegistry> lookup;

	// what the lookup found once settled (null for none), read alone by a decision
	private volatile @Nullable ObservationRegistry registry;

	private volatile boolean settled;

	private final List<RedkitObservationConvention> conventions;

	private final Map<RedkitObservationKind, DefaultRedkitObservationConvention> defaults = new ConcurrentHashMap<>();

	/**
	 * Creates observations on a registry found later.
	 * @param registry supplies the registry, or {@code null} while there is none
	 * @param conventions conventions that replace the default ones for the contexts they
	 * support, first match wins
	 */
	public MicrometerRedkitObservations(Supplier<@Nullable ObservationRegistry> registry,
			List<? extends RedkitObservationConvention> conventions) {
		this.lookup = new LateLookup<>(registry);
		this.conventions = List.copyOf(conventions);
	}

	@Override
	public RedkitObservation start(RedkitObservationKind kind, String name) {
		return start(kind, name, true);
	}

	@Override
	public RedkitObservation startUnscoped(RedkitObservationKind kind, String name) {
		return start(kind, name, false);
	}

	@Override
	public RedkitObservation start(Supplier<? extends RedkitObservationContext> context) {
		ObservationRegistry registry = observing();
		return (registry != null) ? start(registry, context.get(), true) : RedkitObservation.NONE;
	}

	private RedkitObservation start(RedkitObservationKind kind, String name, boolean scoped) {
		ObservationRegistry registry = observing();
		return (registry != null) ? start(registry, new RedkitDecisionContext(kind, name), scoped)
				: RedkitObservation.NONE;
	}

	/**
	 * Whether these observations are Redkit's own and observe nothing now (no registry,
	 * or one without handlers): a caller on a hot path then makes its call without the
	 * function object and the stage an observed call needs. Any other bean, an
	 * application's own, is always asked through its {@code observe} or
	 * {@code observeAsync}, as every capability asks it.
	 * @param observations the observations a capability was given
	 * @return {@code true} when the call may skip them
	 */
	public static boolean observeNothing(RedkitObservations observations) {
		return observations == RedkitObservations.NONE
				|| (observations instanceof MicrometerRedkitObservations own && own.observing() == null);
	}

	/**
	 * What a caller on a hot path may hold in place of asking {@link #observeNothing}
	 * each call, once every singleton exists: the registry Redkit's own observations
	 * settled on, whose {@link ObservationRegistry#isNoop()} then tells the same (a
	 * handler may still be added later), so that the check runs no code of these
	 * observations.
	 * @param observations the observations a capability was given
	 * @return the registry found, {@link ObservationRegistry#NOOP} when none was;
	 * {@code null} when the caller must go on asking {@link #observeNothing}: Redkit's
	 * own not settled yet, {@link RedkitObservations#NONE}, or any other bean (an
	 * application's own, always asked)
	 */
	public static @Nullable ObservationRegistry settledRegistry(RedkitObservations observations) {
		if (observations instanceof MicrometerRedkitObservations own && own.settled) {
			ObservationRegistry registry = own.registry;
			return (registry != null) ? registry : ObservationRegistry.NOOP;
		}
		return null;
	}

	private @Nullable ObservationRegistry observing() {
		ObservationRegistry registry = this.settled ? this.registry : this.lookup.get();
		return (registry != null && !registry.isNoop()) ? registry : null;
	}

	private RedkitObservation start(ObservationRegistry registry, RedkitObservationContext redkit, boolean scoped) {
		Assert.isInstanceOf(Observation.Context.class, redkit, "An observation's context");
		Observation.Context context = (Observation.Context) redkit;
		Observation observation = Observation.createNotStarted(custom(context),
				defaultConvention(redkit.getObservationKind()), () -> context, registry);
		if (observation.isNoop()) {
			return RedkitObservation.NONE;
		}
		observation.start();
		return new Started(observation, scoped ? observation.openScope() : null, redkit);
	}

	private DefaultRedkitObservationConvention defaultConvention(RedkitObservationKind kind) {
		DefaultRedkitObservationConvention convention = this.defaults.get(kind);
		return (convention != null) ? convention
				: this.defaults.computeIfAbsent(kind, DefaultRedkitObservationConvention::new);
	}

	private @Nullable RedkitObservationConvention custom(Observation.Context context) {
		for (RedkitObservationConvention convention : this.conventions) {
			if (convention.supportsContext(context)) {
				return convention;
			}
		}
		return null;
	}

	/**
	 * Looks the registry up for the last time: without one, decisions no longer ask the
	 * bean factory (that lookup cost a rate-limit decision more than its interceptor).
	 */
	@Override
	public void afterSingletonsInstantiated() {
		this.registry = this.lookup.settle();
		this.settled = true;
	}

	private record Started(Observation observation, Observation.@Nullable Scope scope,
			RedkitObservationContext context) implements RedkitObservation {

		@Override
		public void outcome(String outcome) {
			this.context.setOutcome(outcome);
		}

		@Override
		public void error(Throwable error) {
			this.observation.error(error);
		}

		@Override
		public void close() {
			if (this.scope != null) {
				this.scope.close();
			}
			this.observation.stop();
		}

	}

}
