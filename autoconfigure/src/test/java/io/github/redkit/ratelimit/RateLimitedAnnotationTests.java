package io.github.redkit.ratelimit;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.UUID;

import io.github.redkit.core.KeyExpressionException;
import io.github.redkit.ratelimit.internal.PreparedLimit;
import io.github.redkit.ratelimit.internal.RedisRateLimiter;
import io.github.redkit.testsupport.CommandLog;
import io.github.redkit.testsupport.RedisServers;
import org.aopalliance.intercept.MethodInterceptor;
import org.junit.jupiter.api.Test;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import org.springframework.aop.framework.ProxyFactory;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

class RateLimitedAnnotationTests {

	private final String prefix = "ann-" + UUID.randomUUID();

	private final ApplicationContextRunner runner = RateLimitedApplications.runner(this.prefix)
		.withPropertyValues("redkit.rate-limit.limits.login.windows[0].limit=2",
				"redkit.rate-limit.limits.login.windows[0].period=1h")
		.withUserConfiguration(Services.class);

	@Test
	void theLimiterIsAskedOnceACallAndTheRefusalCarriesThePolicy() {
		this.runner.withUserConfiguration(CountingLimiterConfiguration.class).run((context) -> {
			LoginService service = context.getBean(LoginService.class);
			service.login("carol");
			service.login("carol");
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> service.login("carol"))
				.satisfies((ex) -> assertThat(ex.getPolicy()).isNotNull()
					.satisfies((policy) -> assertThat(policy.windows()).singleElement()
						.satisfies((window) -> assertThat(window.limit()).isEqualTo(2))));
			CountingRateLimiter limiter = context.getBean(CountingRateLimiter.class);
			assertThat(limiter.decisions).hasValue(3);
			assertThat(limiter.policyLookups).as("the decision carries the policy").hasValue(0);
		});
	}

	/**
	 * An application's aspect on the limiter makes Spring proxy Redkit's own limiter by
	 * subclassing it: an annotated call must still go through the proxy's public face.
	 */
	@Test
	void anApplicationsAdviceOnTheLimiterSeesEveryAnnotatedDecision() {
		this.runner.withUserConfiguration(AdvisedLimiterConfiguration.class).run((context) -> {
			LoginService service = context.getBean(LoginService.class);
			service.login("dave");
			service.login("dave");
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> service.login("dave"));
			assertThat(context.getBean(AdvisedLimiterConfiguration.class).decisions).hasValue(3);
		});
	}

	@Test
	void aNamedLimitPerArgumentRefusesTheThirdCallWithTheLimitName() {
		this.runner.run((context) -> {
			LoginService service = context.getBean(LoginService.class);
			service.login("alice");
			service.login("alice");
			service.login("bob");
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> service.login("alice"))
				.satisfies((ex) -> {
					assertThat(ex.getLimitName()).isEqualTo("login");
					assertThat(ex.getRetryAfter()).isPositive();
				});
			assertThat(service.calls()).as("a refused call does not run the method").isEqualTo(3);
		});
	}

	@Test
	void aNamedLimitDefinedAgainAfterAnAnnotatedCallDecidesTheNextCall() {
		this.runner.run((context) -> {
			LoginService service = context.getBean(LoginService.class);
			RateLimiter limiter = context.getBean(RateLimiter.class);
			service.login("dave");
			// the interceptor holds the limit it looked up at the first call: it must see
			// the new definition, one call an hour, already used
			limiter.define("login", RateLimitPolicy.slidingWindow(RateLimitWindow.of(1, Duration.ofHours(1))));
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> service.login("dave"))
				.satisfies((ex) -> assertThat(ex.getPolicy().windows()).singleElement()
					.satisfies((window) -> assertThat(window.limit()).isEqualTo(1)));
			limiter.define("login", RateLimitPolicy.slidingWindow(RateLimitWindow.of(3, Duration.ofHours(1))));
			service.login("dave");
			assertThat(service.calls()).isEqualTo(2);
		});
	}

	@Test
	void anInlineLimitWithSeveralKeysAndACost() {
		this.runner.run((context) -> {
			LoginService service = context.getBean(LoginService.class);
			service.export("u1", "10.0.0.1");
			assertThatExceptionOfType(RateLimitExceededException.class)
				.isThrownBy(() -> service.export("u2", "10.0.0.1"))
				.satisfies((ex) -> assertThat(ex.getLimitName()).isEqualTo("LoginService.export"));
		});
	}

	@Test
	void anInlineLimitNamesItsAlgorithm() {
		this.runner.run((context) -> {
			LoginService service = context.getBean(LoginService.class);
			service.resetPassword("a@example.com");
			service.resetPassword("a@example.com");
			assertThatExceptionOfType(RateLimitExceededException.class)
				.isThrownBy(() -> service.resetPassword("a@example.com"))
				.satisfies((ex) -> assertThat(ex.getPolicy().algorithm()).isEqualTo(RateLimitAlgorithm.SLIDING_LOG));
		});
	}

	@Test
	void anInlineSlidingLogAboveItsLargestLimitFailsAtStartUpNamingTheMethod() {
		this.runner.withUserConfiguration(HugeLogConfiguration.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("HugeLog.everything()")
				.hasMessageContaining("at most 10000"));
	}

	@Test
	void aClassLevelAnnotationLimitsEveryMethodWithOneSharedKey() {
		this.runner.run((context) -> {
			ReportService reports = context.getBean(ReportService.class);
			reports.daily();
			reports.weekly();
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(reports::daily);
		});
	}

	@Test
	void sameNamedClassesInDifferentPackagesKeepSeparateCounters() {
		this.runner.run((context) -> {
			io.github.redkit.ratelimit.samename.first.QuotaService first = context
				.getBean(io.github.redkit.ratelimit.samename.first.QuotaService.class);
			io.github.redkit.ratelimit.samename.second.QuotaService second = context
				.getBean(io.github.redkit.ratelimit.samename.second.QuotaService.class);
			assertThat(first.check()).isEqualTo("first");
			assertThat(second.check()).as("a limit of its own").isEqualTo("second");
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(first::check)
				.satisfies((ex) -> assertThat(ex.getLimitName()).isEqualTo("QuotaService.check"));
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(second::check);
		});
	}

	@Test
	void overloadsKeepSeparateCountersAndArePreparedOnce() {
		this.runner.run((context) -> {
			MessageService messages = context.getBean(MessageService.class);
			RedisRateLimiter limiter = context.getBean(RedisRateLimiter.class);
			messages.send("a");
			messages.send("a", 1);
			Map<String, PreparedLimit> prepared = Map.copyOf(limiter.inlineLimits());
			assertThat(prepared).as("one prepared limit per overload").hasSize(2);
			messages.send("a", 2);
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> messages.send("a"));
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> messages.send("a", 3));
			assertThat(limiter.inlineLimits()).hasSize(2);
			prepared.forEach((name, limit) -> assertThat(limiter.inlineLimits().get(name))
				.as("not prepared again on later calls")
				.isSameAs(limit));
		});
	}

	@Test
	void aKeyThatEvaluatesToNullIsAClearError() {
		this.runner.run((context) -> assertThatExceptionOfType(KeyExpressionException.class)
			.isThrownBy(() -> context.getBean(LoginService.class).login(null))
			.withMessageContaining("'user' is null"));
	}

	@Test
	void oneAnnotatedCallIsOneRoundTrip() {
		this.runner.run((context) -> {
			LoginService service = context.getBean(LoginService.class);
			service.login("warm-up");
			CommandLog log = CommandLog.record(RedisServers.standalone(), () -> service.login("counted"));
			assertThat(log.roundTrips()).isEqualTo(1);
		});
	}

	@Test
	void anInconsistentAnnotationFailsAtStartUpNamingTheMethod() {
		this.runner.withUserConfiguration(BrokenConfiguration.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("Broken.both()")
				.hasMessageContaining("not both"));
	}

	@Configuration(proxyBeanMethods = false)
	static class Services {

		@Bean
		LoginService loginService() {
			return new LoginService();
		}

		@Bean
		ReportService reportService() {
			return new ReportService();
		}

		@Bean
		MessageService messageService() {
			return new MessageService();
		}

		@Bean
		io.github.redkit.ratelimit.samename.first.QuotaService firstQuotaService() {
			return new io.github.redkit.ratelimit.samename.first.QuotaService();
		}

		@Bean
		io.github.redkit.ratelimit.samename.second.QuotaService secondQuotaService() {
			return new io.github.redkit.ratelimit.samename.second.QuotaService();
		}

	}

	@RateLimited(limit = 2, period = "1h")
	static class ReportService {

		void daily() {
		}

		void weekly() {
		}

	}

	static class MessageService {

		@RateLimited(limit = 1, period = "1h")
		void send(String to) {
		}

		@RateLimited(limit = 2, period = "1h")
		void send(String to, int copies) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class BrokenConfiguration {

		@Bean
		Broken broken() {
			return new Broken();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class HugeLogConfiguration {

		@Bean
		HugeLog hugeLog() {
			return new HugeLog();
		}

	}

	static class HugeLog {

		@RateLimited(limit = 20_000, period = "1h", algorithm = RateLimitAlgorithm.SLIDING_LOG)
		void everything() {
		}

	}

	static class Broken {

		@RateLimited(value = "login", limit = 3, period = "1m")
		void both() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class CountingLimiterConfiguration {

		@Bean
		static BeanPostProcessor countingRateLimiter() {
			return new BeanPostProcessor() {

				@Override
				public Object postProcessAfterInitialization(Object bean, String beanName) {
					return (bean instanceof RateLimiter limiter && !(bean instanceof CountingRateLimiter))
							? new CountingRateLimiter(limiter) : bean;
				}

			};
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class AdvisedLimiterConfiguration {

		final AtomicInteger decisions = new AtomicInteger();

		@Bean
		static BeanPostProcessor advisedRateLimiter(AdvisedLimiterConfiguration configuration) {
			return new BeanPostProcessor() {

				@Override
				public Object postProcessAfterInitialization(Object bean, String beanName) {
					if (!(bean instanceof RateLimiter)) {
						return bean;
					}
					// what an @Around aspect on RateLimiter.tryAcquire(..) makes of the
					// bean
					ProxyFactory proxy = new ProxyFactory(bean);
					proxy.setProxyTargetClass(true);
					proxy.addAdvice((MethodInterceptor) (invocation) -> {
						if (invocation.getMethod().getName().equals("tryAcquire")
								&& java.lang.reflect.Modifier.isPublic(invocation.getMethod().getModifiers())) {
							configuration.decisions.incrementAndGet();
						}
						return invocation.proceed();
					});
					return proxy.getProxy();
				}

			};
		}

	}

	/**
	 * The application's limiter, counting what it is asked.
	 */
	static final class CountingRateLimiter implements RateLimiter {

		final AtomicInteger decisions = new AtomicInteger();

		final AtomicInteger policyLookups = new AtomicInteger();

		private final RateLimiter delegate;

		CountingRateLimiter(RateLimiter delegate) {
			this.delegate = delegate;
		}

		@Override
		public RateLimitDecision tryAcquire(String limitName, List<String> keys, int cost) {
			this.decisions.incrementAndGet();
			return this.delegate.tryAcquire(limitName, keys, cost);
		}

		@Override
		public RateLimitDecision tryAcquire(String limitName, RateLimitPolicy policy, List<String> keys, int cost) {
			this.decisions.incrementAndGet();
			return this.delegate.tryAcquire(limitName, policy, keys, cost);
		}

		@Override
		public void define(String limitName, RateLimitPolicy policy) {
			this.delegate.define(limitName, policy);
		}

		@Override
		public Optional<RateLimitPolicy> policy(String limitName) {
			this.policyLookups.incrementAndGet();
			return this.delegate.policy(limitName);
		}

	}

}
