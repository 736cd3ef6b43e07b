package io.github.redkit.sample;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample's limits for real traffic, as a client sees them: log-ins limited on their
 * failures only, and an assistant whose calls are charged the tokens they really used.
 */
@SampleApplicationTest
class SampleRealTrafficTests {

	@Test
	void successfulLogInsNeverSpendTheLimitAndFiveFailuresDo(@Autowired ConfigurableApplicationContext context)
			throws Exception {
		SampleClient app = new SampleClient(context);
		String name = SampleClient.uniqueName("login");
		app.register(name);
		for (int i = 0; i < 8; i++) {
			assertThat(login(app, name, "secret-" + name)).isEqualTo(200);
		}
		for (int i = 0; i < 5; i++) {
			assertThat(login(app, name, "wrong-password")).isEqualTo(401);
		}
		assertThat(login(app, name, "secret-" + name)).as("five failures: even the right password waits")
			.isEqualTo(429);
	}

	@Test
	void theAssistantChargesTheTokensACallReallyUsed(@Autowired ConfigurableApplicationContext context)
			throws Exception {
		SampleClient app = new SampleClient(context);
		String auth = app.register(SampleClient.uniqueName("writer"));
		String text = "word ".repeat(100);
		// each call takes 400 up front and uses 112: 17 calls fit in 2,000 tokens a
		// minute,
		// where charging the estimate would let 5 through
		int allowed = 0;
		while (allowed < 30) {
			int status = app.post("/api/assistant/summaries", "{\"text\":\"" + text + "\"}", "Authorization", auth)
				.statusCode();
			if (status != 200) {
				assertThat(status).isEqualTo(429);
				break;
			}
			allowed++;
		}
		assertThat(allowed).isBetween(15, 17);
	}

	private static int login(SampleClient app, String name, String password) throws Exception {
		return app.post("/api/login", "{\"name\":\"" + name + "\",\"password\":\"" + password + "\"}").statusCode();
	}

}
