package io.github.redkit.benchmarks;

import java.io.IOException;
import java.lang.reflect.Method;
import java.net.SocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.lettuce.core.metrics.CommandLatencyRecorder;
import io.lettuce.core.protocol.ProtocolKeyword;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import org.springframework.aop.Advisor;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;

/**
 * How {@link HttpApp} times itself into {@link InServerTimes} when the benchmark asks:
 * each request from the first filter until its response is written, each call of an
 * endpoint's method through its proxy (outermost advice, around Redkit's), and each Redis
 * command's round trip on Lettuce's event loop. Every endpoint, the plain one included,
 * is timed the same way, so the timing's own cost is in both sides of an "added" figure,
 * except the round trip's (Lettuce wraps each command to stamp it).
 */
final class HttpTiming {

	private HttpTiming() {
	}

	/**
	 * What both servers time: the advised method and the Redis round trip.
	 */
	@Configuration(proxyBeanMethods = false)
	static class Common {

		@Bean
		@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
		static Advisor httpTimingAdvisor(InServerTimes times) {
			StaticMethodMatcherPointcut endpoints = new StaticMethodMatcherPointcut() {

				@Override
				public boolean matches(Method method, Class<?> targetClass) {
					return (targetClass == HttpApp.MvcEndpoints.class || targetClass == HttpApp.FluxEndpoints.class)
							&& method.getDeclaringClass() == targetClass;
				}

			};
			DefaultPointcutAdvisor advisor = new DefaultPointcutAdvisor(endpoints, new AdvisedTimer(times));
			// outermost: the time includes Redkit's whole interceptor
			advisor.setOrder(Ordered.HIGHEST_PRECEDENCE);
			return advisor;
		}

		@Bean
		ClientResourcesBuilderCustomizer httpTimingRedisRoundTrip(InServerTimes times) {
			return (builder) -> builder.commandLatencyRecorder(new RoundTripRecorder(times));
		}

	}

	/**
	 * Tomcat: a servlet filter before every other.
	 */
	@Configuration(proxyBeanMethods = false)
	static class Servlet {

		@Bean
		FilterRegistrationBean<Filter> httpTimingFilter(InServerTimes times) {
			FilterRegistrationBean<Filter> registration = new FilterRegistrationBean<>(new ServletTimer(times));
			registration.setOrder(Ordered.HIGHEST_PRECEDENCE);
			return registration;
		}

	}

	/**
	 * WebFlux: a web filter before every other.
	 */
	@Configuration(proxyBeanMethods = false)
	static class Reactive {

		@Bean
		WebFilter httpTimingWebFilter(InServerTimes times) {
			return new ReactiveTimer(times);
		}

	}

	private static final class ServletTimer implements Filter {

		private final InServerTimes times;

		ServletTimer(InServerTimes times) {
			this.times = times;
		}

		@Override
		public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
				throws IOException, ServletException {
			long start = this.times.started();
			try {
				chain.doFilter(request, response);
				// the answer on the wire, not in Tomcat's buffer (the message converter
				// has flushed it already; this is for certainty, on every endpoint)
				response.flushBuffer();
			}
			finally {
				this.times.service(((HttpServletRequest) request).getRequestURI(), start);
			}
		}

	}

	private static final class ReactiveTimer implements WebFilter, Ordered {

		private final InServerTimes times;

		ReactiveTimer(InServerTimes times) {
			this.times = times;
		}

		@Override
		public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
			long start = this.times.started();
			String path = exchange.getRequest().getPath().value();
			// the chain completes once the response is written
			return chain.filter(exchange).doFinally((signal) -> this.times.service(path, start));
		}

		@Override
		public int getOrder() {
			return Ordered.HIGHEST_PRECEDENCE;
		}

	}

	private static final class AdvisedTimer implements MethodInterceptor {

		private final InServerTimes times;

		private final Map<Method, String> paths = new ConcurrentHashMap<>();

		AdvisedTimer(InServerTimes times) {
			this.times = times;
		}

		@Override
		public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
			long start = System.nanoTime();
			String path = this.paths.computeIfAbsent(invocation.getMethod(), AdvisedTimer::path);
			Object result = invocation.proceed();
			if (result instanceof Mono<?> mono) {
				// until the value, before the server writes it
				return mono.doOnSuccess((value) -> this.times.advised(path, System.nanoTime() - start))
					.doOnError((ex) -> this.times.advised(path, System.nanoTime() - start));
			}
			this.times.advised(path, System.nanoTime() - start);
			return result;
		}

		private static String path(Method method) {
			RequestMapping mapping = AnnotatedElementUtils.findMergedAnnotation(method, RequestMapping.class);
			return (mapping != null && mapping.path().length > 0) ? mapping.path()[0] : method.getName();
		}

	}

	private static final class RoundTripRecorder implements CommandLatencyRecorder {

		private final InServerTimes times;

		RoundTripRecorder(InServerTimes times) {
			this.times = times;
		}

		@Override
		public void recordCommandLatency(SocketAddress local, SocketAddress remote, ProtocolKeyword commandType,
				long firstResponseLatency, long completionLatency) {
			this.times.redisRoundTrip(completionLatency);
		}

	}

}
