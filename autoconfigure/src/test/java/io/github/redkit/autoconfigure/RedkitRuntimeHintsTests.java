package io.github.redkit.autoconfigure;

import java.util.ArrayList;
import java.util.List;

import io.github.redkit.actuate.RedkitDashboardWebExtension;
import io.github.redkit.core.internal.KeyExpressionEvaluator;
import io.github.redkit.idempotency.IdempotentStep;
import io.github.redkit.pubsub.ControlSnapshot;
import io.github.redkit.queue.DeadLetter;
import io.github.redkit.queue.QueueListener;
import org.junit.jupiter.api.Test;

import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.BeanUtils;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.javapoet.ClassName;
import org.springframework.util.ClassUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The hints a native image needs, checked with Spring's own predicates: every script a
 * bean loads, the SpEL root object, the JSON types Redkit reads, and what it does
 * reflectively with an application's annotated methods. The registrars are found the way
 * Spring AOT finds them: through {@code META-INF/spring/aot.factories}, and on the
 * auto-configurations ({@code @ImportRuntimeHints}).
 */
class RedkitRuntimeHintsTests {

	@Test
	void everyScriptIsARegisteredResource() throws Exception {
		RuntimeHints hints = registeredHints();
		Resource[] scripts = new PathMatchingResourcePatternResolver()
			.getResources("classpath*:META-INF/redkit/scripts/*.lua");
		assertThat(scripts).as("scripts found").hasSizeGreaterThan(25);
		for (Resource script : scripts) {
			assertThat(RuntimeHintsPredicates.resource().forResource("META-INF/redkit/scripts/" + script.getFilename()))
				.as(script.getFilename())
				.accepts(hints);
		}
	}

	@Test
	void theDashboardPageIsARegisteredResource() throws Exception {
		assertThat(RuntimeHintsPredicates.resource().forResource(RedkitDashboardWebExtension.PAGE))
			.accepts(registeredHints());
	}

	@Test
	void theKeyExpressionRootAndTheJsonTypesAreReflective() throws Exception {
		RuntimeHints hints = registeredHints();
		assertThat(RuntimeHintsPredicates.reflection().onType(KeyExpressionEvaluator.KeyExpressionRoot.class))
			.accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection()
			.onMethodInvocation(KeyExpressionEvaluator.KeyExpressionRoot.class, "method")).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onType(DeadLetter.class)).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onType(ControlSnapshot.class)).accepts(hints);
	}

	@Test
	void queueListenersAreInvokableAndTheirPayloadsAndStepResultsBindable() throws Exception {
		DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
		beanFactory.registerBeanDefinition("orders", new RootBeanDefinition(Orders.class));
		RuntimeHints hints = new RuntimeHints();
		for (BeanRegistrationAotProcessor processor : SpringFactoriesLoader
			.forResourceLocation("META-INF/spring/aot.factories")
			.load(BeanRegistrationAotProcessor.class)) {
			BeanRegistrationAotContribution contribution = processor
				.processAheadOfTime(RegisteredBean.of(beanFactory, "orders"));
			if (contribution != null) {
				DefaultGenerationContext context = new DefaultGenerationContext(
						new ClassNameGenerator(ClassName.get("com.example", "Aot")), new InMemoryGeneratedFiles(),
						hints);
				contribution.applyTo(context, null);
			}
		}
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Orders.class, "placed")).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onType(OrderPlaced.class)).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(OrderPlaced.class, "orderId"))
			.as("record accessors, for Jackson")
			.accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onType(Receipt.class)).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onType(Unrelated.class)).rejects(hints);
	}

	private static RuntimeHints registeredHints() {
		RuntimeHints hints = new RuntimeHints();
		List<RuntimeHintsRegistrar> registrars = new ArrayList<>(
				SpringFactoriesLoader.forResourceLocation("META-INF/spring/aot.factories")
					.load(RuntimeHintsRegistrar.class));
		assertThat(registrars).hasAtLeastOneElementOfType(RedkitRuntimeHints.class);
		for (String configuration : ImportCandidates.load(AutoConfiguration.class, null)) {
			ImportRuntimeHints imported = AnnotationUtils
				.findAnnotation(ClassUtils.resolveClassName(configuration, null), ImportRuntimeHints.class);
			if (imported != null) {
				for (Class<? extends RuntimeHintsRegistrar> type : imported.value()) {
					registrars.add(BeanUtils.instantiateClass(type));
				}
			}
		}
		registrars
			.forEach((registrar) -> registrar.registerHints(hints, RedkitRuntimeHintsTests.class.getClassLoader()));
		return hints;
	}

	record OrderPlaced(String orderId, long amount) {
	}

	record Receipt(String id) {
	}

	record Unrelated(String id) {
	}

	static class Orders {

		@QueueListener(queue = "orders")
		void placed(OrderPlaced event) {
		}

		@IdempotentStep(operation = "#orderId", step = "charge")
		Receipt charge(String orderId) {
			return new Receipt(orderId);
		}

		Unrelated other(Unrelated unrelated) {
			return unrelated;
		}

	}

}
