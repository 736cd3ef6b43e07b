package io.github.redkit.ratelimit;

import java.lang.instrument.Instrumentation;
import java.security.CodeSource;
import java.security.ProtectionDomain;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.autoconfigure.ratelimit.RateLimitAutoConfiguration;
import io.github.redkit.testsupport.RedisServers;
import io.lettuce.core.resource.NettyCustomizer;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import net.bytebuddy.agent.ByteBuddyAgent;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.agent.builder.ResettableClassFileTransformer;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.matcher.ElementMatchers;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The walk of one allowed blocking {@code @RateLimited} decision of one identifier, from
 * the annotation to the script and back, counted (issue 44): every class of Redkit's
 * library whose code runs on the caller's thread or on Lettuce's event loop is recorded,
 * by its top-level class (one file), down until the reply's first bytes reach the
 * connection's channel, and back from then until the annotated method has run. A class
 * only returned through is not counted back: it does no work there. The sets are the ones
 * {@code docs/architecture.md} lists; a change that adds a hop fails here.
 */
class RateLimitDecisionWalkTests {

	/** What a decision runs down to the script, as the guide lists it. */
	static final Set<String> DOWN = Set.of("RedkitInterceptor", "RateLimitedInterceptor", "RateLimitedOperation",
			"KeyExpressionEvaluator", "LimitReference", "RateLimitRegistry", "RedisRateLimiter",
			"MicrometerRedkitObservations", "LateLookup", "FailureCooldown", "PreparedLimit", "ScriptConnection",
			"KeptConnection", "ScriptCalls", "LuaScript", "ReplayGuard", "AnswerWatch", "EncodedEvalsha");

	/** What it runs back, as the guide lists it. */
	static final Set<String> BACK = Set.of("AnswerWatch", "ReplayGuard", "ScriptCalls", "PreparedLimit",
			"RateLimitDecision", "RateLimitPolicy", "RedisRateLimiter", "RateLimitMeters", "MicrometerRedkitMetrics",
			"LateLookup", "RateLimitedInterceptor");

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
				RedkitAutoConfiguration.class, RateLimitAutoConfiguration.class))
		.withPropertyValues(RedisServers.standalone().springProperties())
		.withPropertyValues("redkit.rate-limit.timeout=5s", "redkit.key-prefix=walk-" + UUID.randomUUID(),
				"redkit.rate-limit.limits.login.windows[0].limit=1000000",
				"redkit.rate-limit.limits.login.windows[0].period=1h")
		.withUserConfiguration(Services.class);

	@Test
	void anAllowedBlockingDecisionPassesTheListedFilesDownAndBack() {
		Instrumentation instrumentation = ByteBuddyAgent.install();
		ResettableClassFileTransformer transformer = new AgentBuilder.Default().disableClassFormatChanges()
			.with(AgentBuilder.RedefinitionStrategy.RETRANSFORMATION)
			.with(AgentBuilder.RedefinitionStrategy.BatchAllocator.ForFixedSize.ofSize(1))
			.with(AgentBuilder.RedefinitionStrategy.Listener.StreamWriting.toSystemError())
			.with(AgentBuilder.Listener.StreamWriting.toSystemError().withErrorsOnly())
			.type((type, loader, module, redefined, domain) -> type.getName().startsWith("io.github.redkit.")
					&& library(domain))
			.transform((builder, type, loader, module,
					domain) -> builder.visit(Advice.to(Entered.class)
						.on(ElementMatchers.isMethod()
							.or(ElementMatchers.isConstructor())
							.and(ElementMatchers.not(ElementMatchers.isAbstract())))))
			.installOn(instrumentation);
		try {
			this.runner.run((context) -> {
				LoginService service = context.getBean(LoginService.class);
				// connected, the script loaded, every class initialized
				for (int i = 0; i < 50; i++) {
					service.login("warm-" + (i % 3));
				}
				Walk.start(Thread.currentThread());
				try {
					service.login("walker");
				}
				finally {
					Walk.stop();
				}
				System.out.println("down (" + Walk.down.size() + "): " + new TreeSet<>(Walk.down));
				System.out.println("back (" + Walk.back.size() + "): " + new TreeSet<>(Walk.back));
				assertThat(new TreeSet<>(Walk.down)).as("down").isEqualTo(new TreeSet<>(DOWN));
				assertThat(new TreeSet<>(Walk.back)).as("back").isEqualTo(new TreeSet<>(BACK));
			});
		}
		finally {
			transformer.reset(instrumentation, AgentBuilder.RedefinitionStrategy.RETRANSFORMATION);
		}
	}

	// the published library's classes, not the tests' nor the test support's
	private static boolean library(ProtectionDomain domain) {
		CodeSource source = (domain != null) ? domain.getCodeSource() : null;
		String location = (source != null && source.getLocation() != null) ? source.getLocation().toString() : "";
		return location.contains("/autoconfigure/library/")
				|| location.contains("/redkit-spring-boot-") && !location.contains("redkit-spring-boot-tests");
	}

	/** Inlined at the start of every method and constructor of the library. */
	static final class Entered {

		@Advice.OnMethodEnter
		static void enter(@Advice.Origin Class<?> type) {
			Walk.entered(type);
		}

	}

	/** What the recorded call ran, down and back. */
	public static final class Walk {

		static final Set<String> down = ConcurrentHashMap.newKeySet();

		static final Set<String> back = ConcurrentHashMap.newKeySet();

		private static volatile int phase;

		private static volatile Thread caller;

		private Walk() {
		}

		static void start(Thread thread) {
			down.clear();
			back.clear();
			caller = thread;
			phase = 1;
		}

		static void stop() {
			phase = 0;
		}

		static void replyArrives() {
			if (phase == 1) {
				phase = 2;
			}
		}

		public static void entered(Class<?> type) {
			int current = phase;
			if (current == 0) {
				return;
			}
			Thread thread = Thread.currentThread();
			if (thread != caller && !thread.getName().startsWith("lettuce-")) {
				return;
			}
			String name = type.getName().substring(type.getName().lastIndexOf('.') + 1);
			int nested = name.indexOf('$');
			String file = (nested < 0) ? name : name.substring(0, nested);
			((current == 1) ? down : back).add(file);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Services {

		@Bean
		LoginService loginService() {
			return new LoginService();
		}

		// the reply's first bytes turn the walk from down to back
		@Bean
		ClientResourcesBuilderCustomizer replyWatch() {
			return (builder) -> builder.nettyCustomizer(new NettyCustomizer() {

				@Override
				public void afterChannelInitialized(Channel channel) {
					channel.pipeline().addFirst(new ChannelInboundHandlerAdapter() {

						@Override
						public void channelRead(ChannelHandlerContext context, Object message) {
							Walk.replyArrives();
							context.fireChannelRead(message);
						}

					});
				}

			});
		}

	}

	static class LoginService {

		@RateLimited(value = "login", key = "'user:' + #user")
		void login(String user) {
		}

	}

}
