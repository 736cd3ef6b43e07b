package io.github.redkit.sample.analytics;

import java.time.Instant;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.context.annotation.Configuration;
import org.springframework.web.servlet.HandlerInterceptor;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * Counts every API caller (by IP) in the day's unique-visitor HyperLogLog, and every API
 * request in its minute of the day's bitfield.
 */
@Configuration(proxyBeanMethods = false)
class VisitCounter implements WebMvcConfigurer {

	private final Analytics analytics;

	private final VisitsPerMinute visitsPerMinute;

	VisitCounter(Analytics analytics, VisitsPerMinute visitsPerMinute) {
		this.analytics = analytics;
		this.visitsPerMinute = visitsPerMinute;
	}

	@Override
	public void addInterceptors(InterceptorRegistry registry) {
		registry.addInterceptor(new HandlerInterceptor() {
			@Override
			public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler) {
				VisitCounter.this.analytics.visit(request.getRemoteAddr());
				VisitCounter.this.visitsPerMinute.record(Instant.now());
				return true;
			}
		}).addPathPatterns("/api/**");
	}

}
