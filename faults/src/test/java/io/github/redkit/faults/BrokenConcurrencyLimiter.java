package io.github.redkit.faults;

import java.lang.reflect.Method;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

import io.github.redkit.concurrency.ConcurrencyLimiter;
import io.github.redkit.concurrency.ConcurrencyPermit;

/**
 * Breaks the concurrency limiter of an instance on purpose ({@code faults.broken}), so
 * that a test can show the checker catching a broken build.
 */
class BrokenConcurrencyLimiter extends BrokenBuild<ConcurrencyLimitScenario.Breakage> {

	private final AtomicLong answers = new AtomicLong();

	BrokenConcurrencyLimiter() {
		super("faults.broken", ConcurrencyLimitScenario.Breakage.class, ConcurrencyLimiter.class);
	}

	@Override
	Object call(Object bean, Method method, Object[] args) throws Throwable {
		Object answer = invoke(bean, method, args);
		return method.getName().startsWith("tryAcquire")
				? bend(answer, (value) -> (value instanceof Optional<?> permit) ? breakIt(permit) : value) : answer;
	}

	private Optional<?> breakIt(Optional<?> answer) {
		boolean fifth = this.answers.incrementAndGet() % 5 == 0;
		if (broken(ConcurrencyLimitScenario.Breakage.OVER_ALLOW) && answer.isEmpty() && fifth) {
			return Optional.of(new Unlimited());
		}
		if (broken(ConcurrencyLimitScenario.Breakage.LEAK) && answer.isPresent() && fifth
				&& answer.get() instanceof ConcurrencyPermit permit) {
			return Optional.of(new NeverGivenBack(permit));
		}
		return answer;
	}

	/**
	 * A permit handed out over the limit, as a script that skipped its check would.
	 */
	private record Unlimited() implements ConcurrencyPermit {

		@Override
		public String limitName() {
			return ConcurrencyLimitScenario.LIMIT;
		}

		@Override
		public boolean acquired() {
			return true;
		}

		@Override
		public long inFlight() {
			return 1;
		}

		@Override
		public long remaining() {
			return 0;
		}

		@Override
		public boolean isHeld() {
			return true;
		}

		@Override
		public void close() {
		}

	}

	/**
	 * A permit whose close forgets to give it back: it stays renewed.
	 */
	private record NeverGivenBack(ConcurrencyPermit permit) implements ConcurrencyPermit {

		@Override
		public String limitName() {
			return this.permit.limitName();
		}

		@Override
		public boolean acquired() {
			return true;
		}

		@Override
		public long inFlight() {
			return this.permit.inFlight();
		}

		@Override
		public long remaining() {
			return this.permit.remaining();
		}

		@Override
		public boolean isHeld() {
			return this.permit.isHeld();
		}

		@Override
		public void close() {
		}

		@Override
		public CompletableFuture<Void> closeAsync() {
			return CompletableFuture.completedFuture(null);
		}

	}

}
