package io.github.redkit.benchmarks;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import org.springframework.boot.WebApplicationType;

/**
 * The servers the HTTP benchmark runs its application on.
 */
enum HttpServerKind {

	/**
	 * Spring MVC on Tomcat, blocking handlers on Tomcat's request threads.
	 */
	TOMCAT("Tomcat (Spring MVC)", WebApplicationType.SERVLET),

	/**
	 * Spring WebFlux on Reactor Netty, {@code Mono} handlers on the event loops.
	 */
	NETTY("Netty (WebFlux)", WebApplicationType.REACTIVE);

	private final String description;

	private final WebApplicationType type;

	HttpServerKind(String description, WebApplicationType type) {
		this.description = description;
		this.type = type;
	}

	String description() {
		return this.description;
	}

	WebApplicationType type() {
		return this.type;
	}

	/**
	 * The servers named on the command line ({@code --servers=tomcat,netty}).
	 * @param names the names, empty for both
	 * @return the servers
	 */
	static List<HttpServerKind> named(List<String> names) {
		if (names.isEmpty()) {
			return List.of(values());
		}
		return names.stream().map((name) -> {
			try {
				return valueOf(name.toUpperCase(Locale.ROOT));
			}
			catch (IllegalArgumentException ex) {
				throw new IllegalArgumentException(
						"--servers: unknown server '" + name + "'; servers: " + Arrays.toString(values()), ex);
			}
		}).toList();
	}

}
