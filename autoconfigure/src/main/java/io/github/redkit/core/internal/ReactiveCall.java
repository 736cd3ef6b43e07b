package io.github.redkit.core.internal;

import java.lang.reflect.Method;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.context.ContextView;

import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.core.ReactiveAdapter;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.util.ClassUtils;

/**
 * A call to an annotated method whose result arrives later: a {@code Mono}, a
 * {@code Flux}, a {@code CompletableFuture} or any type Spring's
 * {@link ReactiveAdapterRegistry} adapts. The annotation's decision is made when the
 * result is subscribed to (at once for a {@code CompletableFuture}, which is already
 * running), and each subscription invokes the method anew.
 */
public final class ReactiveCall {

	private static final boolean REACTOR_PRESENT = ClassUtils.isPresent("reactor.core.publisher.Mono",
			ReactiveCall.class.getClassLoader());

	private static final ClassValue<Optional<ReactiveAdapter>> ADAPTERS = new ClassValue<>() {

		@Override
		protected Optional<ReactiveAdapter> computeValue(Class<?> type) {
			return Optional.ofNullable(ReactiveAdapterRegistry.getSharedInstance().getAdapter(type));
		}

	};

	private static final AtomicReferenceFieldUpdater<ReactiveCall, @Nullable MethodInvocation> PRISTINE = AtomicReferenceFieldUpdater
		.newUpdater(ReactiveCall.class, MethodInvocation.class, "pristine");

	private final MethodInvocation invocation;

	private final ReactiveAdapter adapter;

	// a clone of the invocation made before the first subscription proceeded it, which
	// later subscriptions clone in turn: a proceeded invocation stands at its last
	// interceptor, and so would a clone of it, which would call the method past every
	// interceptor after this one (a transaction, a lock)
	private volatile @Nullable MethodInvocation pristine;

	private ReactiveCall(MethodInvocation invocation, ReactiveAdapter adapter) {
		this.invocation = invocation;
		this.adapter = adapter;
	}

	/**
	 * The reactive call of an invocation.
	 * @param invocation the invocation
	 * @return the call, or {@code null} when the method returns a plain value (or Reactor
	 * is not on the classpath)
	 */
	public static @Nullable ReactiveCall of(MethodInvocation invocation) {
		if (!REACTOR_PRESENT) {
			return null;
		}
		ReactiveAdapter adapter = ADAPTERS.get(invocation.getMethod().getReturnType()).orElse(null);
		return (adapter != null && !adapter.isNoValue()) ? new ReactiveCall(invocation, adapter) : null;
	}

	/**
	 * Whether a method of this return type hands its result over later (a future, or a
	 * type the {@link ReactiveAdapterRegistry} adapts), so that an annotation that acts
	 * around the call must act around the result instead.
	 * @param returnType the method's return type
	 * @return {@code true} for a deferred result
	 */
	public static boolean isDeferred(Class<?> returnType) {
		if (CompletionStage.class.isAssignableFrom(returnType) || Future.class.isAssignableFrom(returnType)) {
			return true;
		}
		return adapts(returnType);
	}

	/**
	 * Whether calls to a method are reactive calls, so that an interceptor can ask once
	 * per method instead of once per call.
	 * @param method the method
	 * @return {@code true} when {@link #of(MethodInvocation)} returns a call for it
	 */
	public static boolean isReactive(Method method) {
		return adapts(method.getReturnType());
	}

	private static boolean adapts(Class<?> returnType) {
		return REACTOR_PRESENT && ADAPTERS.get(returnType).filter((adapter) -> !adapter.isNoValue()).isPresent();
	}

	/**
	 * Whether the method emits many values ({@code Flux}) or at most one.
	 * @return {@code true} for many
	 */
	public boolean multiValue() {
		return this.adapter.isMultiValue();
	}

	/**
	 * The method's result: each subscription invokes the method (and the interceptors
	 * after this one) again.
	 * @return the values the method emits
	 */
	public Flux<Object> proceed() {
		return Flux.defer(this::invoke);
	}

	// invokes the method once: its publisher as the adapter makes it, its failure as one
	private Publisher<Object> invoke() {
		Object result;
		try {
			result = nextCall().proceed();
		}
		catch (Throwable ex) {
			return Mono.error(ex);
		}
		return (result != null) ? this.adapter.<Object>toPublisher(result) : Mono.empty();
	}

	// The first subscription proceeds the invocation itself, which nothing proceeded
	// before (the interceptor returned without proceeding it), once it kept a pristine
	// clone of it; each later one proceeds a clone of that clone, which starts at the
	// interceptor after this one again. A subscription that loses the race to be first
	// drops the clone it made
	private MethodInvocation nextCall() {
		if (!(this.invocation instanceof ProxyMethodInvocation proxied)) {
			return this.invocation;
		}
		MethodInvocation pristine = this.pristine;
		if (pristine == null) {
			MethodInvocation clone = proxied.invocableClone();
			if (PRISTINE.compareAndSet(this, null, clone)) {
				return proxied;
			}
			pristine = Objects.requireNonNull(this.pristine);
		}
		return (pristine instanceof ProxyMethodInvocation kept) ? kept.invocableClone() : pristine;
	}

	/**
	 * The method's result after a decision: the decision is asked for on subscription,
	 * and the method invoked when {@code admit} does not throw.
	 * @param <D> the decision's type
	 * @param decision asks for the decision
	 * @param admit throws the refusal, or lets the call through
	 * @return a value of the method's return type
	 */
	public <D> Object proceedAfter(Supplier<CompletableFuture<D>> decision, Consumer<D> admit) {
		return adapt(Mono.fromFuture(decision).flatMapMany((decided) -> {
			admit.accept(decided);
			return proceed();
		}));
	}

	/**
	 * The method's result after a decision, with the subscriber's Reactor context: the
	 * decision is asked for on subscription, and the method invoked when {@code admit}
	 * does not throw. {@code admit} sees the context the result is subscribed with, e.g.
	 * the web exchange a WebFlux filter put there.
	 * @param <D> the decision's type
	 * @param decision asks for the decision
	 * @param admit throws the refusal, or lets the call through
	 * @return a value of the method's return type
	 */
	public <D> Object proceedAfter(Supplier<CompletableFuture<D>> decision, BiConsumer<D, ContextView> admit) {
		if (!this.adapter.isMultiValue()) {
			// a single value stays a Mono: no Flux operators between the decision and it
			return adapt(Mono.fromFuture(decision).flatMap((decided) -> Mono.deferContextual((context) -> {
				admit.accept(decided, context);
				return Mono.from(invoke());
			})));
		}
		return adapt(Mono.fromFuture(decision).flatMapMany((decided) -> Flux.deferContextual((context) -> {
			admit.accept(decided, context);
			return proceed();
		})));
	}

	/**
	 * The method's result after a decision, followed to its end: as
	 * {@link #proceedAfter(Supplier, BiConsumer)}, and {@code follow} wraps the values
	 * the method emits once it is admitted, e.g. to act when they complete or fail.
	 * @param <D> the decision's type
	 * @param decision asks for the decision
	 * @param admit throws the refusal, or lets the call through
	 * @param follow wraps the method's values
	 * @return a value of the method's return type
	 */
	public <D> Object proceedAfter(Supplier<CompletableFuture<D>> decision, BiConsumer<D, ContextView> admit,
			BiFunction<D, Flux<Object>, Publisher<Object>> follow) {
		return adapt(Mono.fromFuture(decision).flatMapMany((decided) -> Flux.deferContextual((context) -> {
			admit.accept(decided, context);
			return follow.apply(decided, proceed());
		})));
	}

	/**
	 * The method's result while holding something (a permit, a lock): it is taken on
	 * subscription, the method invoked while it is held, and it is given back when the
	 * method's publisher completes, fails or is cancelled, or, when the subscriber
	 * cancels while it is being taken, as soon as it is taken (see {@link ReactiveHold}).
	 * A single value ({@code Mono}, a future) reaches the subscriber once the give-back
	 * is answered, so that a call made on receiving it finds the place free; a give-back
	 * that fails is logged and the value still delivered.
	 * @param <H> what is held
	 * @param take takes it; a refusal completes exceptionally
	 * @param giveBack gives it back
	 * @return a value of the method's return type
	 */
	public <H> Object proceedWhileHolding(Supplier<CompletableFuture<H>> take,
			Function<H, CompletableFuture<?>> giveBack) {
		Mono<H> taken = ReactiveAcquire.of(take, giveBack::apply);
		ReactiveHold.GiveBack<H> given = (held) -> giveBack.apply(held).thenApply((answer) -> Optional.empty());
		return adapt(this.adapter.isMultiValue() ? ReactiveHold.many(taken, (held) -> proceed(), given)
				: ReactiveHold.one(taken, (held) -> proceed(), given));
	}

	/**
	 * Turns what the interceptor built back into the method's return type.
	 * @param result the values to emit
	 * @return a value of the method's return type
	 */
	public Object adapt(Publisher<?> result) {
		return this.adapter.fromPublisher(this.adapter.isMultiValue() ? Flux.from(result) : Mono.from(result));
	}

	/**
	 * The invocation.
	 * @return the invocation
	 */
	public MethodInvocation invocation() {
		return this.invocation;
	}

}
