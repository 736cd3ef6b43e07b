package io.github.redkit.autoconfigure.actuate;

import io.github.redkit.actuate.RedkitDashboardWebExtension;
import io.github.redkit.actuate.RedkitEndpoint;

import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.endpoint.expose.EndpointExposure;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * The dashboard page of the {@code redkit} endpoint, when
 * {@code redkit.dashboard.enabled=true} and the endpoint is available over the web.
 */
@AutoConfiguration(after = RedkitEndpointAutoConfiguration.class)
@ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension")
@ConditionalOnWebApplication
@ConditionalOnBooleanProperty("redkit.dashboard.enabled")
@ConditionalOnAvailableEndpoint(endpoint = RedkitEndpoint.class, exposure = EndpointExposure.WEB)
@EnableConfigurationProperties(RedkitDashboardProperties.class)
public final class RedkitDashboardAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(RedkitEndpoint.class)
	RedkitDashboardWebExtension redkitDashboardWebExtension(RedkitDashboardProperties properties) {
		// the page reads the endpoint's access from its summary
		return new RedkitDashboardWebExtension(properties.getPollInterval());
	}

}
