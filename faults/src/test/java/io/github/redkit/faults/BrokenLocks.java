package io.github.redkit.faults;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

import io.github.redkit.lock.DistributedLocks;
import io.github.redkit.lock.LockHandle;
import io.github.redkit.lock.ReactiveDistributedLocks;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.util.ClassUtils;

/**
 * Breaks the locks of an instance on purpose ({@code faults.broken}), so that a test can
 * show the checker catching a broken build.
 */
class BrokenLocks implements BeanPostProcessor, EnvironmentAware, BeanFactoryAware {

	private LockScenario.Breakage breakage = LockScenario.Breakage.NONE;

	private final AtomicLong tokens = new AtomicLong();

	private BeanFactory beans;

	@Override
	public void setEnvironment(Environment environment) {
		this.breakage = environment.getProperty("faults.broken", LockScenario.Breakage.class,
				LockScenario.Breakage.NONE);
	}

	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		this.beans = beanFactory;
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (this.breakage == LockScenario.Breakage.NONE
				|| !(bean instanceof DistributedLocks || bean instanceof ReactiveDistributedLocks)) {
			return bean;
		}
		return Proxy.newProxyInstance(getClass().getClassLoader(), ClassUtils.getAllInterfaces(bean),
				(proxy, method, args) -> {
					Object result;
					try {
						result = method.invoke(bean, args);
					}
					catch (InvocationTargetException ex) {
						throw ex.getTargetException();
					}
					if (result instanceof Optional<?> handle) {
						return handle.map(this::breakIt);
					}
					if (result instanceof Mono<?> mono) {
						return mono.map(this::breakIt);
					}
					if (result instanceof CompletableFuture<?> future) {
						return future.thenApply(
								(value) -> (value instanceof Optional<?> handle) ? handle.map(this::breakIt) : value);
					}
					return result;
				});
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
			return (BrokenLocks.this.breakage == LockScenario.Breakage.LOCAL_TOKEN) ? this.localToken
					: this.handle.fencingToken();
		}

		@Override
		public boolean isHeld() {
			return (BrokenLocks.this.breakage == LockScenario.Breakage.IGNORE_LEASE) ? !this.closed
					: this.handle.isHeld();
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
			if (BrokenLocks.this.breakage == LockScenario.Breakage.RELEASE_ANY) {
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
