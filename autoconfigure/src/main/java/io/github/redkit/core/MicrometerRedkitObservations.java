package io.github.redkit.core;

import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * {@link RedkitObservations} on a Micrometer {@link ObservationRegistry}. The registry is
 * looked up on first use, so that its auto-configuration may run after Redkit's; without
 * one, nothing is observed. Once every singleton of the context exists, the answer is
 * kept, a missing registry included. Each kind's convention is the first of the given
 * ones that supports its context, else a {@link DefaultRedkitObservationConvention}.
 */
public final class MicrometerRedkitObservations implements RedkitObservations, SmartInitializingSingleton {

	private final Supplier<@Nullable ObservationRegistry> registrySupplier;

	private final List<RedkitObservationConvention> conventions;

	private final DefaultRedkitObservationConvention[] defaults;

	private volatile @Nullable ObservationRegistry registry;

	private volatile boolean settled;

	/**
	 * Creates observations on a registry found later.
	 * @param registry supplies the registry, or {@code null} while there is none
	 * @param conventions conventions that replace the default ones for the contexts they
	 * support, first match wins
	 */
	public MicrometerRedkitObservations(Supplier<@Nullable ObservationRegistry> registry,
			List<? extends RedkitObservationConvention> conventions) {
		this.registrySupplier = registry;
		this.conventions = List.copyOf(conventions);
		RedkitObservationKind[] kinds = RedkitObservationKind.values();
		this.defaults = new DefaultRedkitObservationConvention[kinds.length];
		for (RedkitObservationKind kind : kinds) {
			this.defaults[kind.ordinal()] = new DefaultRedkitObservationConvention(kind);
		}
	}

	@Override
	public RedkitObservation start(RedkitObservationKind kind, String name) {
		return start(new RedkitDecisionContext(kind, name), true);
	}

	@Override
	public RedkitObservation startUnscoped(RedkitObservationKind kind, String name) {
		return start(new RedkitDecisionContext(kind, name), false);
	}

	@Override
	public RedkitObservation startSend(String queue, Map<String, String> headers) {
		return start(new RedkitQueueSendContext(queue, headers), true);
	}

	@Override
	public RedkitObservation startHandle(String queue, Map<String, String> headers) {
		return start(new RedkitQueueHandleContext(queue, headers), true);
	}

	private <C extends Observation.Context & RedkitObservationContext> RedkitObservation start(C context,
			boolean scoped) {
		ObservationRegistry registry = registry();
		if (registry == null || registry.isNoop()) {
			return RedkitObservation.NONE;
		}
		Observation observation = Observation.createNotStarted(custom(context),
				this.defaults[context.getObservationKind().ordinal()], () -> context, registry);
		if (observation.isNoop()) {
			return RedkitObservation.NONE;
		}
		observation.start();
		return new Started(observation, scoped ? observation.openScope() : null, context);
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
		this.registry = this.registrySupplier.get();
		this.settled = true;
	}

	private @Nullable ObservationRegistry registry() {
		ObservationRegistry current = this.registry;
		if (current == null && !this.settled) {
			current = this.registrySupplier.get();
			this.registry = current;
		}
		return current;
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
