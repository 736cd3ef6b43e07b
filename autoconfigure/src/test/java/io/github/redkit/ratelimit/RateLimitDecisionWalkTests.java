package io.github.redkit.ratelimit;

import java.lang.instrument.Instrumentation;
import java.nio.charset.StandardCharsets;
import java.security.CodeSource;
import java.time.Duration;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

import io.lettuce.core.resource.NettyCustomizer;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import net.bytebuddy.agent.ByteBuddyAgent;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.matcher.ElementMatchers;
import net.bytebuddy.utility.JavaModule;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The walk of one allowed {@code @RateLimited} decision of one identifier, from the
 * annotation to the script and back, counted (issue 44), for a blocking method and for
 * one returning a {@code Mono}: every class of Redkit's library whose code runs on the
 * caller's thread or on Lettuce's event loop is recorded, by its source file (the path of
 * its package and top-level class: two classes of one name in two packages are two
 * files), down until the first bytes of a reply reach the channel the decision's own
 * script was written to, and back from then until the annotated method has run (its
 * {@code Mono} completed). A class only returned through is not counted back: it does no
 * work there. The sets are the ones {@code docs/architecture.md} lists; a change that
 * adds a hop fails here.
 * <p>
 * The count is honest only when the agent saw every class run, so the walk fails when: a
 * library class was loaded before the agent was installed (it runs in a JVM of its own,
 * the surefire execution {@code decision-walk}, and installs the agent before any test
 * touches the library); a loaded library class was not transformed, or its transformation
 * failed; library code ran during the walk on a thread that is neither the caller's nor
 * Lettuce's.
 */
@Tag("decision-walk")
class RateLimitDecisionWalkTests {

	/**
	 * What a blocking decision runs down to the script, as the guide lists it: each file
	 * by its path under {@code io/github/redkit/}, so that two classes of one name in two
	 * packages count as two.
	 */
	static final Set<String> DOWN = Set.of("core/internal/RedkitInterceptor.java",
			"ratelimit/internal/RateLimitedInterceptor.java", "ratelimit/internal/RateLimitedOperation.java",
			"core/internal/KeyExpressionEvaluator.java", "core/RedisKeyspace.java",
			"ratelimit/internal/RateLimitRegistry.java", "ratelimit/internal/RedisRateLimiter.java",
			"ratelimit/internal/PreparedLimit.java", "core/internal/RedisScriptRunner.java",
			"core/internal/ScriptConnection.java", "core/internal/ScriptCalls.java", "core/internal/LuaScript.java",
			"core/internal/ReplayGuard.java");

	/** What it runs back, as the guide lists it. */
	static final Set<String> BACK = Set.of("core/internal/ReplayGuard.java", "core/internal/ScriptCalls.java",
			"ratelimit/internal/PreparedLimit.java", "ratelimit/RateLimitDecision.java",
			"ratelimit/internal/RedisRateLimiter.java", "ratelimit/internal/RateLimitMeters.java",
			"core/internal/MicrometerRedkitMetrics.java", "ratelimit/internal/RateLimitedInterceptor.java");

	/**
	 * What a decision of a method returning a {@code Mono} runs down, as the guide lists
	 * it: the blocking one's and {@code ReactiveCall}.
	 */
	static final Set<String> REACTIVE_DOWN = union(DOWN, "core/internal/ReactiveCall.java");

	/**
	 * What it runs back, as the guide lists it: the blocking one's and
	 * {@code ReactiveCall}.
	 */
	static final Set<String> REACTIVE_BACK = union(BACK, "core/internal/ReactiveCall.java");

	private static Set<String> union(Set<String> files, String... more) {
		Set<String> union = new TreeSet<>(files);
		union.addAll(List.of(more));
		return Set.copyOf(union);
	}

	private static final String WALKER = "walker-" + UUID.randomUUID();

	private static @Nullable Instrumentation instrumentation;

	private final ApplicationContextRunner runner = RateLimitedApplications.runner("walk-" + UUID.randomUUID())
		.withPropertyValues("redkit.rate-limit.limits.login.windows[0].limit=1000000",
				"redkit.rate-limit.limits.login.windows[0].period=1h")
		.withUserConfiguration(Services.class);

	// before any test touches the library: each class is transformed as it loads
	@BeforeAll
	static void instrumentTheLibrary() {
		assumeTrue(Boolean.getBoolean("redkit.decision-walk"),
				"runs in the surefire execution decision-walk, a JVM of its own");
		Instrumentation installed = ByteBuddyAgent.install();
		assertThat(libraryClasses(installed)).as("library classes loaded before the agent").isEmpty();
		new AgentBuilder.Default().disableClassFormatChanges()
			.with(new Recording())
			.type((type, loader, module, redefined, domain) -> type.getName().startsWith("io.github.redkit.")
					&& library(domain))
			.transform((builder, type, loader, module,
					domain) -> builder.visit(Advice.to(Entered.class)
						.on(ElementMatchers.isMethod()
							.or(ElementMatchers.isConstructor())
							.and(ElementMatchers.not(ElementMatchers.isAbstract())))))
			.installOn(installed);
		instrumentation = installed;
	}

	@Test
	void anAllowedBlockingDecisionPassesTheListedFilesDownAndBack() {
		walk((context) -> context.getBean(LoginService.class).login(WALKER), DOWN, BACK);
	}

	// a reply read before the decision's script is written (here on the caller's
	// thread, on any of the application's connections) does not turn the walk
	@Test
	void aReplyReadBeforeTheDecisionsScriptIsWrittenDoesNotTurnTheWalk() {
		walk((context) -> {
			context.getBean(StringRedisTemplate.class).opsForValue().get("walk-probe");
			context.getBean(LoginService.class).login(WALKER);
		}, DOWN, BACK);
	}

	@Test
	void anAllowedDecisionOfAMonoPassesTheListedFilesDownAndBack() {
		walk((context) -> context.getBean(LoginService.class).search(WALKER).block(), REACTIVE_DOWN, REACTIVE_BACK);
	}

	// issue 44's goal: fewer files than the tree it was filed against walked (e61072ba:
	// 14
	// down and 12 back, 15 and 13 for a Mono), so that a list grown to let a longer walk
	// pass fails too
	@Test
	void theListedWalksAreShorterThanTheWalksAtFiling() {
		assertThat(DOWN).hasSizeLessThan(14);
		assertThat(BACK).hasSizeLessThan(12);
		assertThat(REACTIVE_DOWN).hasSizeLessThan(15);
		assertThat(REACTIVE_BACK).hasSizeLessThan(13);
	}

	private void walk(Consumer<ConfigurableApplicationContext> call, Set<String> down, Set<String> back) {
		this.runner.run((context) -> {
			LoginService service = context.getBean(LoginService.class);
			// connected, the script loaded, every class initialized
			for (int i = 0; i < 50; i++) {
				service.login("warm-" + (i % 3));
				service.search("warm-" + (i % 3)).block();
			}
			Walk.start(Thread.currentThread());
			try {
				call.accept(context);
			}
			finally {
				Walk.stop();
			}
			System.out.println("down (" + Walk.down.size() + "): " + new TreeSet<>(Walk.down));
			System.out.println("back (" + Walk.back.size() + "): " + new TreeSet<>(Walk.back));
			System.out.println("down, by method: " + new TreeSet<>(Walk.downMethods));
			System.out.println("back, by method: " + new TreeSet<>(Walk.backMethods));
			assertThat(Recording.errors).as("transformations that failed").isEmpty();
			Set<String> untransformed = new TreeSet<>();
			for (Class<?> type : libraryClasses(instrumentation)) {
				if (!Recording.transformed.contains(type.getName())) {
					untransformed.add(type.getName());
				}
			}
			assertThat(untransformed).as("library classes the agent did not transform").isEmpty();
			assertThat(Walk.decisionChannel).as("the channel the decision's script was written to").isNotNull();
			assertThat(Walk.callerWaited).as("the caller waited for the answer before the reply was read").isTrue();
			assertThat(Walk.elsewhere).as("library code run on other threads during the walk").isEmpty();
			assertThat(new TreeSet<>(Walk.down)).as("down").isEqualTo(new TreeSet<>(down));
			assertThat(new TreeSet<>(Walk.back)).as("back").isEqualTo(new TreeSet<>(back));
		});
	}

	// the published library's classes loaded in this JVM (hidden ones, lambdas, have
	// their code in their host class; synthetic ones, an enum switch's map, none that a
	// call runs)
	private static List<Class<?>> libraryClasses(@Nullable Instrumentation instrumentation) {
		List<Class<?>> classes = new ArrayList<>();
		for (Class<?> type : Objects.requireNonNull(instrumentation).getAllLoadedClasses()) {
			if (type.getName().startsWith("io.github.redkit.") && !type.isHidden() && !type.isSynthetic()
					&& library(type.getProtectionDomain())) {
				classes.add(type);
			}
		}
		return classes;
	}

	// the published library's classes, not the tests' nor the test support's
	private static boolean library(@Nullable ProtectionDomain domain) {
		CodeSource source = (domain != null) ? domain.getCodeSource() : null;
		String location = (source != null && source.getLocation() != null) ? source.getLocation().toString() : "";
		return location.contains("/autoconfigure/library/")
				|| location.contains("/redkit-spring-boot-") && !location.contains("redkit-spring-boot-tests");
	}

	/** Which classes the agent transformed, and which it failed to. */
	static final class Recording extends AgentBuilder.Listener.Adapter {

		static final Set<String> transformed = ConcurrentHashMap.newKeySet();

		static final Map<String, Throwable> errors = new ConcurrentHashMap<>();

		@Override
		public void onTransformation(TypeDescription type, @Nullable ClassLoader loader, @Nullable JavaModule module,
				boolean loaded, DynamicType dynamicType) {
			transformed.add(type.getName());
		}

		@Override
		public void onError(String typeName, @Nullable ClassLoader loader, @Nullable JavaModule module, boolean loaded,
				Throwable throwable) {
			errors.put(typeName, throwable);
		}

	}

	/** Inlined at the start of every method and constructor of the library. */
	static final class Entered {

		@Advice.OnMethodEnter
		static void enter(@Advice.Origin Class<?> type, @Advice.Origin("#m") String method) {
			Walk.entered(type, method);
		}

	}

	/** What the recorded call ran, down and back. */
	public static final class Walk {

		private static final String LIBRARY = "io.github.redkit.";

		static final Set<String> down = ConcurrentHashMap.newKeySet();

		static final Set<String> back = ConcurrentHashMap.newKeySet();

		static final Set<String> elsewhere = ConcurrentHashMap.newKeySet();

		// what each file ran, printed to tell why it is on the walk
		static final Set<String> downMethods = ConcurrentHashMap.newKeySet();

		static final Set<String> backMethods = ConcurrentHashMap.newKeySet();

		static volatile boolean callerWaited;

		private static final byte[] marker = WALKER.getBytes(StandardCharsets.UTF_8);

		static volatile @Nullable Channel decisionChannel;

		private static volatile int phase;

		private static volatile @Nullable Thread caller;

		private Walk() {
		}

		static void start(Thread thread) {
			down.clear();
			back.clear();
			downMethods.clear();
			backMethods.clear();
			elsewhere.clear();
			callerWaited = false;
			decisionChannel = null;
			caller = thread;
			phase = 1;
		}

		static void stop() {
			phase = 0;
		}

		// the decision's own script carries the walker's key
		static void written(Channel channel, Object message) {
			if (phase == 1 && decisionChannel == null && message instanceof ByteBuf bytes
					&& ByteBufUtil.indexOf(Unpooled.wrappedBuffer(marker), bytes) >= 0) {
				decisionChannel = channel;
			}
		}

		// the reply is read once the caller did all it does before the answer: it
		// waits for it (so that no class goes back only because the caller ran late)
		static void read(Channel channel) {
			Thread waiting = caller;
			if (phase == 1 && channel == decisionChannel && waiting != null) {
				long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
				while (!(callerWaited = waiting.getState() == Thread.State.WAITING
						|| waiting.getState() == Thread.State.TIMED_WAITING) && System.nanoTime() < deadline) {
					Thread.onSpinWait();
				}
				phase = 2;
			}
		}

		public static void entered(Class<?> type, String method) {
			int current = phase;
			if (current == 0) {
				return;
			}
			// the source file: the package's path and the top-level class
			String name = type.getName().substring(LIBRARY.length());
			int nested = name.indexOf('$');
			String file = ((nested < 0) ? name : name.substring(0, nested)).replace('.', '/') + ".java";
			Thread thread = Thread.currentThread();
			if (thread != caller && !thread.getName().startsWith("lettuce-")) {
				elsewhere.add(thread.getName() + ": " + file);
				return;
			}
			((current == 1) ? down : back).add(file);
			((current == 1) ? downMethods : backMethods).add(type.getName().substring(LIBRARY.length()) + "." + method);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Services {

		@Bean
		LoginService loginService() {
			return new LoginService();
		}

		// the reply's first bytes on the decision's channel turn the walk from down to
		// back
		@Bean
		ClientResourcesBuilderCustomizer replyWatch() {
			return (builder) -> builder.nettyCustomizer(new NettyCustomizer() {

				@Override
				public void afterChannelInitialized(Channel channel) {
					channel.pipeline().addFirst(new ChannelDuplexHandler() {

						@Override
						public void write(ChannelHandlerContext context, Object message, ChannelPromise promise)
								throws Exception {
							Walk.written(context.channel(), message);
							super.write(context, message, promise);
						}

						@Override
						public void channelRead(ChannelHandlerContext context, Object message) {
							Walk.read(context.channel());
							context.fireChannelRead(message);
						}

					});
				}

			});
		}

	}

}
