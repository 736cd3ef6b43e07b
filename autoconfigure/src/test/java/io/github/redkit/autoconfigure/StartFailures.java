package io.github.redkit.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * How a capability's suite sees a bad annotation refused at start-up, written once: the
 * application fails to start, naming the method and what is wrong with it.
 */
public final class StartFailures {

	private StartFailures() {
	}

	/**
	 * Asserts that an application with a bean fails to start naming its method.
	 * @param runner the capability's application
	 * @param service the bean whose annotation is bad
	 * @param method the method as the failure names it ({@code Type.method()})
	 * @param message what the failure says is wrong
	 */
	public static void assertFailsToStart(ApplicationContextRunner runner, Class<?> service, String method,
			String message) {
		runner.withBean(service)
			.run((context) -> assertThat(context).as(method)
				.hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining(method)
				.hasMessageContaining(message));
	}

}
