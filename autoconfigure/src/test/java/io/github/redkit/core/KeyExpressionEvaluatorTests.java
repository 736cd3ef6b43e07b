package io.github.redkit.core;

import java.lang.reflect.Method;

import io.github.redkit.core.internal.KeyExpressionEvaluator;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.util.ReflectionUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class KeyExpressionEvaluatorTests {

	private final DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();

	private final KeyExpressionEvaluator evaluator = new KeyExpressionEvaluator(this.beanFactory);

	private final Service service = new Service();

	private final Method charge = ReflectionUtils.findMethod(Service.class, "charge", String.class, int.class);

	@Test
	void argumentsByNameAndPosition() {
		Object[] args = { "u1", 5 };
		assertThat(this.evaluator.evaluate("'user:' + #userId", this.charge, this.service, args)).isEqualTo("user:u1");
		assertThat(this.evaluator.evaluate("#p1", this.charge, this.service, args)).isEqualTo("5");
	}

	@Test
	void rootMethodTargetAndArgs() {
		Object[] args = { "u1", 5 };
		assertThat(this.evaluator.evaluate("#root.methodName", this.charge, this.service, args)).isEqualTo("charge");
		assertThat(this.evaluator.evaluate("#root.target.name", this.charge, this.service, args)).isEqualTo("svc");
		assertThat(this.evaluator.evaluate("#root.args[0]", this.charge, this.service, args)).isEqualTo("u1");
	}

	@Test
	void beansByName() {
		this.beanFactory.registerSingleton("tenants", new Tenants());
		assertThat(this.evaluator.evaluate("@tenants.current()", this.charge, this.service, new Object[] { "u", 1 }))
			.isEqualTo("acme");
	}

	@Test
	void nullIsAClearErrorNotAKeyNamedNull() {
		assertThatExceptionOfType(KeyExpressionException.class)
			.isThrownBy(() -> this.evaluator.evaluate("#userId", this.charge, this.service, new Object[] { null, 1 }))
			.withMessageContaining("'#userId'")
			.withMessageContaining("Service.charge()")
			.withMessageContaining("null");
	}

	@Test
	void aNullArgumentInsideAConcatenationIsAClearErrorToo() {
		assertThatExceptionOfType(KeyExpressionException.class).isThrownBy(
				() -> this.evaluator.evaluate("'user:' + #userId", this.charge, this.service, new Object[] { null, 1 }))
			.withMessageContaining("argument 'userId' is null");
	}

	@Test
	void anExpressionThatHandlesNullItselfMayUseANullArgument() {
		assertThat(
				this.evaluator.evaluate("#userId ?: 'anonymous'", this.charge, this.service, new Object[] { null, 1 }))
			.isEqualTo("anonymous");
	}

	@Test
	void emptyIsAClearError() {
		assertThatExceptionOfType(KeyExpressionException.class)
			.isThrownBy(() -> this.evaluator.evaluate("#userId", this.charge, this.service, new Object[] { "", 1 }))
			.withMessageContaining("empty");
	}

	/**
	 * A blank key is refused here as every capability refuses it (a rate limit, a
	 * concurrency limit, a lock, a budget): a 400 naming the expression, not a failure
	 * further down.
	 */
	@Test
	void blankIsAClearError() {
		for (String blank : new String[] { " ", "\t", "  \n" }) {
			assertThatExceptionOfType(KeyExpressionException.class)
				.isThrownBy(
						() -> this.evaluator.evaluate("#userId", this.charge, this.service, new Object[] { blank, 1 }))
				.withMessageContaining("'#userId'")
				.withMessageContaining("blank");
		}
	}

	@Test
	void invalidExpressionIsAClearError() {
		assertThatExceptionOfType(KeyExpressionException.class)
			.isThrownBy(() -> this.evaluator.evaluate("#userId +", this.charge, this.service, new Object[] { "u", 1 }))
			.withMessageContaining("'#userId +'");
	}

	static class Service {

		public String getName() {
			return "svc";
		}

		void charge(String userId, int amount) {
		}

	}

	static class Tenants {

		public String current() {
			return "acme";
		}

	}

}
