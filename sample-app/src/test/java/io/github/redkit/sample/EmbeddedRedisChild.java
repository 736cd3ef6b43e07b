package io.github.redkit.sample;

import java.io.IOException;

import org.springframework.boot.SpringApplication;
import org.springframework.core.env.StandardEnvironment;

/**
 * An application that starts the sample's embedded Redis on the port given as its
 * argument (as the {@code regions} profile does), prints that port, and runs until it is
 * killed: {@link EmbeddedRedisTests} kills it with {@code SIGKILL}.
 */
final class EmbeddedRedisChild {

	private EmbeddedRedisChild() {
	}

	public static void main(String[] args) throws IOException {
		StandardEnvironment environment = new StandardEnvironment();
		System.setProperty("spring.data.redis.host", "127.0.0.1");
		System.setProperty("spring.data.redis.port", args[0]);
		System.setProperty("sample.embedded-redis-on-configured-port", "true");
		new EmbeddedRedisEnvironmentPostProcessor((destination) -> destination.get())
			.postProcessEnvironment(environment, new SpringApplication(EmbeddedRedisChild.class));
		System.out.println("redis " + environment.getProperty("spring.data.redis.port"));
		System.out.flush();
		// until killed
		while (System.in.read() >= 0) {
		}
	}

}
