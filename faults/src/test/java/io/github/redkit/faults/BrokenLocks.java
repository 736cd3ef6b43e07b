package io.github.redkit.faults;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.lock.DistributedLocks;
import io.github.redkit.lock.LockHandle;
import io.github.redkit.lock.ReactiveDistributedLocks;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Breaks the locks of an instance on purpose ({@code faults.broken}), so that a test can
 * show the checker catching a broken build.
 */
class BrokenLocks extends BrokenBuild<LockScenario.Breakage> implements BeanFactoryAware {

	/**
	 * The script {@link LockScenario.Breakage#REPLAY_NOT_RECOGNISED} sends without its
	 * dedupe.
	 */
	static final String SCRIPT = "lock_acquire";

	/** How that script recognises an acquire delivered again. */
	static final String DEDUPE = "holder == ARGV[1]";

	private final AtomicLong tokens = new AtomicLong();

	private BeanFactory beans;

	BrokenLocks() {
		super("faults.broken", LockScenario.Breakage.class, DistributedLocks.class, ReactiveDistributedLocks.class);
	}

	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		this.beans = beanFactory;
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (bean instanceof RedisScriptRunner runner && broken(LockScenario.Breakage.REPLAY_NOT_RECOGNISED)) {
			return DedupeRemoved.runner(runner, SCRIPT, DEDUPE);
		}
		return super.postProcessAfterInitialization(bean, beanName);
	}

	@Override
	Object call(Object bean, Method method, Object[] args) throws Throwable {
		if (broken(LockScenario.Breakage.REPLAY_NOT_RECOGNISED)) {
			return invoke(bean, method, args);
		}
		return bend(invoke(bean, method, args),
				(value) -> (value instanceof Optional<?> handle) ? handle.map(this::breakIt) : breakIt(value));
	}

	private Object breakIt(Object value) {
		return (value instanceof LockHandle handle) ? new Broken(handle, this.tokens.incrementAndGet()) : value;
	}

	/**
	 * A handle broken as the build is.
	 */
	private final class Broken implements LockHandle {

		private final LockHandle handle;

		private final long localToken;

		private volatile boolean closed;

		Broken(LockHandle handle, long localToken) {
			this.handle = handle;
			this.localToken = localToken;
		}

		@Override
		public long fencingToken() {
			return broken(LockScenario.Breakage.LOCAL_TOKEN) ? this.localToken : this.handle.fencingToken();
		}

		@Override
		public boolean isHeld() {
			return broken(LockScenario.Breakage.IGNORE_LEASE) ? !this.closed : this.handle.isHeld();
		}

		@Override
		public boolean extend(Duration lease) {
			return this.handle.extend(lease);
		}

		@Override
		public String key() {
			return this.handle.key();
		}

		@Override
		public String name() {
			return this.handle.name();
		}

		@Override
		public void close() {
			release();
		}

		@Override
		public boolean release() {
			boolean held = isHeld();
			this.closed = true;
			if (broken(LockScenario.Breakage.RELEASE_ANY)) {
				BrokenLocks.this.beans.getBean(StringRedisTemplate.class).delete("faults:lock:{" + key() + "}");
			}
			this.handle.close();
			return held;
		}

		@Override
		public String toString() {
			return "broken " + this.handle;
		}

	}

}
