package io.github.redkit.autoconfigure.actuate;

import java.util.List;

import io.github.redkit.actuate.RedkitEndpoint;
import io.github.redkit.actuate.RedkitEndpointActivity;
import io.github.redkit.actuate.RedkitEndpointSection;
import io.github.redkit.actuate.internal.ActivityEndpointSection;
import io.github.redkit.actuate.internal.MeterActivityCounts;
import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.micrometer.core.instrument.MeterRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.EndpointAccessResolver;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.util.ClassUtils;

/**
 * The {@code redkit} actuator endpoint, with the sections the capabilities present
 * contribute ({@link RedkitEndpointSection} beans, from each capability's own
 * auto-configuration) and the {@code activity} section.
 */
@AutoConfiguration(after = RedkitAutoConfiguration.class)
@ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
@ConditionalOnBean(RedisScriptRunner.class)
@ConditionalOnAvailableEndpoint(RedkitEndpoint.class)
@EnableConfigurationProperties(RedkitEndpointProperties.class)
public final class RedkitEndpointAutoConfiguration {

	private static final boolean MICROMETER_PRESENT = ClassUtils.isPresent(
			"io.micrometer.core.instrument.MeterRegistry", RedkitEndpointAutoConfiguration.class.getClassLoader());

	@Bean
	@ConditionalOnMissingBean
	RedkitEndpoint redkitEndpoint(ObjectProvider<EndpointAccessResolver> accessResolver,
			ObjectProvider<RedkitEndpointSection> sections) {
		return new RedkitEndpoint(access(accessResolver.getIfAvailable()), sections.orderedStream().toList());
	}

	@Bean
	@ConditionalOnMissingBean
	ActivityEndpointSection redkitActivityEndpointSection(BeanFactory beanFactory) {
		// declared by each capability next to its meters, whether or not it is configured
		List<RedkitEndpointActivity> activities = SpringFactoriesLoader
			.forDefaultResourceLocation(RedkitEndpointAutoConfiguration.class.getClassLoader())
			.load(RedkitEndpointActivity.class);
		return new ActivityEndpointSection(activities,
				MICROMETER_PRESENT ? Meters.counts(beanFactory) : ActivityEndpointSection.Counts.NONE);
	}

	// what Boot's resolver decides (management.endpoint.redkit.access, capped by
	// management.endpoints.access.max-permitted); without one, the endpoint's default
	private static Access access(@Nullable EndpointAccessResolver resolver) {
		return (resolver != null) ? resolver.accessFor(EndpointId.of("redkit"), Access.READ_ONLY) : Access.READ_ONLY;
	}

	// loaded only when Micrometer is on the class path
	private static final class Meters {

		static ActivityEndpointSection.Counts counts(BeanFactory beanFactory) {
			ObjectProvider<MeterRegistry> registry = beanFactory.getBeanProvider(MeterRegistry.class);
			return new MeterActivityCounts(registry::getIfUnique);
		}

	}

}
