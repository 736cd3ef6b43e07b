package io.github.redkit.sample;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample as two regions, two applications on two Redis servers (the README's two
 * commands): a campaign budget created in one is spent in both, every region's view
 * converges, and {@code regions.html} in a real browser shows both views converging after
 * a click.
 */
class SampleRegionsTests {

	@Test
	void twoRegionsSpendOneCampaignAndThePageShowsBothViewsConverging(@PrivateRedis RedisServer euRedis,
			@PrivateRedis RedisServer usRedis) throws Exception {
		try (SampleClient us = SampleClient.on(usRedis, "--spring.profiles.active=regions", "--redkit.regions.local=us",
				"--redkit.regions.peers.eu.url=redis://127.0.0.1:" + euRedis.port());
				SampleClient eu = SampleClient.on(euRedis, "--spring.profiles.active=regions",
						"--redkit.regions.local=eu",
						"--redkit.regions.peers.us.url=redis://127.0.0.1:" + usRedis.port(),
						"--sample.regions.peer-url=" + us.base(), "--sample.regions.campaign-budget=1000")) {
			awaitRemaining(List.of(eu, us), 1000);
			JsonNode spent = SampleClient.json(us.post("/api/regions/campaign/spend?amount=100", null));
			assertThat(spent.get("spent").asBoolean()).isTrue();
			assertThat(spent.get("remaining").asLong()).isEqualTo(900);
			awaitRemaining(List.of(eu, us), 900);
			assertThat(eu.post("/api/regions/campaign/spend?amount=0", null).statusCode()).isEqualTo(400);

			WebDriver browser = SampleDashboardBrowserTests.startBrowser();
			try {
				WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(20));
				browser.get(eu.base() + "/regions.html");
				wait.until(ExpectedConditions.textToBe(By.cssSelector("td[data-region='eu']"), "900"));
				wait.until(ExpectedConditions.textToBe(By.cssSelector("td[data-region='us']"), "900"));
				browser.findElement(By.id("burst")).click();
				wait.until(ExpectedConditions.textToBe(By.cssSelector("td[data-region='eu']"), "700"));
				wait.until(ExpectedConditions.textToBe(By.cssSelector("td[data-region='us']"), "700"));
				wait.until(ExpectedConditions.textToBe(By.id("status"), "Every region sees the same remaining."));
				assertThat(SampleDashboardBrowserTests.consoleErrors(browser)).as("console errors").isEmpty();
			}
			finally {
				browser.quit();
			}
			awaitRemaining(List.of(eu, us), 700);
		}
	}

	private static void awaitRemaining(List<SampleClient> regions, long expected) {
		await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
			for (SampleClient region : regions) {
				HttpResponse<String> view = region.get("/api/regions/campaign");
				assertThat(view.statusCode()).isEqualTo(200);
				assertThat(SampleClient.json(view).get("remaining").asLong()).isEqualTo(expected);
			}
		});
	}

}
