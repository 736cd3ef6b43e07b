package io.github.redkit.faults;

import java.lang.reflect.Method;
import java.util.concurrent.atomic.AtomicLong;

import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.faults.IdempotentStepScenario.Breakage;
import io.github.redkit.idempotency.IdempotentSteps;
import io.github.redkit.idempotency.StepClaim;
import io.github.redkit.idempotency.StepOutcome;

/**
 * Breaks the idempotent steps of an instance on purpose ({@code faults.broken-steps}), so
 * that a test can show the checker catching a broken build. The reactive face is built on
 * this bean, so it breaks too.
 */
class BrokenIdempotentSteps extends BrokenBuild<Breakage> {

	/** The script {@link Breakage#REPLAY_NOT_RECOGNISED} sends without its dedupe. */
	static final String SCRIPT = "idempotency_claim";

	/** How that script recognises a claim delivered again. */
	static final String DEDUPE = "string.match(mine, '^p|%d+|%d+|([^|]*)|') == ARGV[4]";

	private final AtomicLong refusals = new AtomicLong();

	BrokenIdempotentSteps() {
		super("faults.broken-steps", Breakage.class, IdempotentSteps.class);
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (bean instanceof RedisScriptRunner runner && broken(Breakage.REPLAY_NOT_RECOGNISED)) {
			return DedupeRemoved.runner(runner, SCRIPT, DEDUPE);
		}
		return super.postProcessAfterInitialization(bean, beanName);
	}

	@Override
	Object call(Object bean, Method method, Object[] args) throws Throwable {
		IdempotentSteps steps = (IdempotentSteps) bean;
		if (broken(Breakage.STALE_COMPLETE) && isComplete(method, args)) {
			StepClaim claim = (StepClaim) args[0];
			// completes whichever claim holds the step: no token check
			return method.getName().equals("complete")
					? invoke(steps,
							IdempotentSteps.class.getMethod("complete", String.class, String.class, Object.class),
							claim.operation(), claim.step(), args[1])
					: steps.completeAsync(claim.operation(), claim.step(), args[1]);
		}
		Object answer = invoke(bean, method, args);
		return broken(Breakage.DUPLICATE_CLAIM)
				? bend(answer, (value) -> (value instanceof StepClaim claim) ? breakIt(claim) : value) : answer;
	}

	private static boolean isComplete(Method method, Object[] args) {
		return method.getName().startsWith("complete") && args != null && args.length == 2
				&& args[0] instanceof StepClaim;
	}

	private StepClaim breakIt(StepClaim claim) {
		if (claim.outcome() == StepOutcome.CLAIMED || this.refusals.incrementAndGet() % 5 != 0) {
			return claim;
		}
		return new StepClaim(claim.operation(), claim.step(), StepOutcome.CLAIMED, claim.token(), claim.ttl(),
				claim.lease(), claim.fingerprint(), null, claim.doneSteps(), claim.inProgressSteps());
	}

}
