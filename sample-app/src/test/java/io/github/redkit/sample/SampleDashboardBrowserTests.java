package io.github.redkit.sample;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.regex.Pattern;

import io.github.redkit.lock.DistributedLocks;
import io.github.redkit.lock.LockHandle;
import io.github.redkit.queue.QueueMessage;
import io.github.redkit.queue.QueueTemplate;
import io.github.redkit.test.boot.RedkitTest;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.NoSuchElementException;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.test.annotation.DirtiesContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dashboard in a real browser: the system's headless Chromium, driven by Selenium
 * through the system's chromedriver (Debian: {@code chromium}, {@code chromium-driver};
 * {@code .ci/run} installs them). Against the sample's full endpoint, the page loads
 * without console errors, shows a queue's depth, the activity of a rate limit (allowed
 * and denied), the fan-out control group with its acknowledgement, an auction's steps and
 * a held lock, and replays a dead letter by a click and a confirmation. A screenshot goes
 * to {@code target/dashboard.png}, and to {@code docs/images/dashboard.png} with
 * {@code -Dredkit.screenshot}.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "sample.embedded-redis=false", "management.endpoint.redkit.access=unrestricted",
				"redkit.dashboard.poll-interval=500ms", "redkit.queue.queues.emails.max-attempts=1",
				"sample.admin-token=" + SampleClient.ADMIN })
@RedkitTest
@DirtiesContext
class SampleDashboardBrowserTests {

	/** A queue no listener consumes: what is sent stays until the test takes it. */
	private static final String QUEUE = "emails";

	@Test
	void showsEveryViewOfTheFullEndpointAndReplaysADeadLetterByAClick(@Autowired ConfigurableApplicationContext context)
			throws Exception {
		WebDriver browser = startBrowser();
		try {
			SampleClient app = new SampleClient(context);
			QueueTemplate queues = app.bean(QueueTemplate.class);
			WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(20));
			browser.get(app.base() + "/actuator/redkit");
			wait.until(ExpectedConditions.textToBe(cell("depth"), "0"));
			assertThat(browser.findElement(By.id("access")).getText()).isEqualTo("access: unrestricted");

			for (int i = 0; i < 3; i++) {
				queues.send(QUEUE, Map.of("to", "user-" + i + "@example.com"));
			}
			wait.until(ExpectedConditions.textToBe(cell("depth"), "3"));

			QueueMessage<Map> failed = queues.receive(QUEUE, Map.class).orElseThrow();
			queues.fail(failed, new IllegalStateException("mail server said 550"));
			wait.until(ExpectedConditions.textToBe(cell("dead-letters"), "1"));
			wait.until(ExpectedConditions.textToBe(cell("depth"), "2"));

			demo(app, wait, browser);

			click(wait, By.cssSelector("tr[data-queue='" + QUEUE + "'] button:not(.danger)"));
			click(wait, By.cssSelector("tr[data-dead-letter] button.danger"));
			wait.until(ExpectedConditions.alertIsPresent()).accept();
			wait.until(ExpectedConditions.textToBe(cell("dead-letters"), "0"));
			wait.until(ExpectedConditions.textToBe(cell("depth"), "3"));
			assertThat(queues.deadLetters(QUEUE, 10)).isEmpty();

			assertThat(consoleErrors(browser)).as("console errors").isEmpty();
			assertThat(browser.findElement(By.id("status")).getAttribute("class")).isNotEqualTo("error");
		}
		finally {
			browser.quit();
		}
	}

	/**
	 * Every other view against the real endpoint, which also fills the picture:
	 * rate-limit decisions (five allowed, two denied by {@code posts}), the fan-out
	 * control group and this instance's acknowledgement, an auction's recorded steps, a
	 * held lock and a usage lookup.
	 */
	private void demo(SampleClient app, WebDriverWait wait, WebDriver browser) throws Exception {
		String auth = app.register(SampleClient.uniqueName("demo"));
		int denied = 0;
		for (int i = 0; i < 7; i++) {
			int status = app.post("/api/posts", "{\"text\":\"demo " + i + "\"}", "Authorization", auth).statusCode();
			denied += (status == 429) ? 1 : 0;
		}
		assertThat(denied).as("posts denied by the 5 / 10s limit").isEqualTo(2);
		By posts = By.id("rate-posts");
		wait.until((driver) -> count(driver, posts, "data-allowed") >= 5 && count(driver, posts, "data-denied") >= 2);
		assertThat(browser.findElement(posts).findElement(By.className("legend")).getText()).contains("allowed")
			.contains("denied");

		assertThat(
				app.post("/api/admin/fanout", "{\"throttle\":250}", "X-Admin-Token", SampleClient.ADMIN).statusCode())
			.isEqualTo(200);
		By fanout = By.cssSelector("#control tr[data-group='fanout']");
		wait.until(ExpectedConditions.textToBePresentInElementLocated(fanout, "throttle=\"250\""));
		// the version this instance's listener applied, under its subscriber id
		wait.until(ExpectedConditions.textMatches(fanout, Pattern.compile("\\S+ \\(v\\d+\\)")));

		String campaign = SampleClient.uniqueName("camp");
		assertThat(app.post("/api/campaigns", "{\"id\":\"" + campaign + "\",\"budget\":10000}").statusCode())
			.isEqualTo(201);
		String auction = "/api/campaigns/" + campaign + "/auctions/a1/";
		assertThat(app.post(auction + "bid", "{\"amount\":300}").statusCode()).isEqualTo(200);
		assertThat(app.post(auction + "notice", "{\"amount\":120}").statusCode()).isEqualTo(200);
		browser.findElement(By.id("steps-operation")).sendKeys("auction:" + campaign + ":a1");
		click(wait, By.cssSelector("#steps-form button"));
		wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("#steps tr[data-step='notice']")));
		assertThat(browser.findElement(By.cssSelector("#steps tr[data-step='bid']")).getText()).contains("completed");
		assertThat(browser.findElement(By.cssSelector("#steps tr[data-step='notice']")).getText())
			.contains("completed");

		browser.findElement(By.id("budget-id")).sendKeys(campaign);
		click(wait, By.cssSelector("#budget-form button"));
		// 10000 less the 120 the notice committed
		wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("budget"), "9880 remaining"));

		LockHandle lock = app.bean(DistributedLocks.class)
			.tryLock("campaign-settlement", Duration.ZERO, Duration.ofMinutes(1))
			.orElseThrow();
		try {
			wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("locks"), "campaign-settlement"));
			browser.findElement(By.id("usage-limit")).sendKeys("posts-ip");
			browser.findElement(By.id("usage-key")).sendKeys("ip:127.0.0.1");
			click(wait, By.cssSelector("#usage-form button"));
			wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("usage"), "50 / 10s"));
			// the whole page in the picture: as tall as its content, from the top
			JavascriptExecutor page = (JavascriptExecutor) browser;
			long height = (Long) page.executeScript("return document.documentElement.scrollHeight;");
			browser.manage().window().setSize(new Dimension(1400, (int) height + 140));
			page.executeScript("window.scrollTo(0, 0);");
			// a poll or two more, so that the charts have their latest point
			long seen = count(browser, posts, "data-polls");
			wait.until((driver) -> count(driver, posts, "data-polls") >= seen + 2);
			screenshot(browser);
		}
		finally {
			lock.close();
		}
	}

	private static long count(WebDriver browser, By element, String attribute) {
		try {
			String value = browser.findElement(element).getAttribute(attribute);
			return (value != null && !value.isEmpty()) ? Long.parseLong(value) : -1;
		}
		catch (NoSuchElementException | StaleElementReferenceException ex) {
			return -1;
		}
	}

	/**
	 * Clicks what the locator finds, again if a poll rebuilt the table in between (the
	 * page rebuilds a table when its data changed, e.g. a lease that counts down).
	 */
	private static void click(WebDriverWait wait, By target) {
		wait.ignoring(StaleElementReferenceException.class).until((browser) -> {
			browser.findElement(target).click();
			return true;
		});
	}

	private static By cell(String column) {
		return By.cssSelector("tr[data-queue='" + QUEUE + "'] td." + column);
	}

	private static void screenshot(WebDriver browser) throws Exception {
		File shot = ((ChromeDriver) browser).getScreenshotAs(OutputType.FILE);
		Path target = Path.of("target", "dashboard.png");
		Files.copy(shot.toPath(), target, StandardCopyOption.REPLACE_EXISTING);
		if (System.getProperty("redkit.screenshot") != null) {
			Files.copy(target, Path.of("..", "docs", "images", "dashboard.png"), StandardCopyOption.REPLACE_EXISTING);
		}
	}

	/** What the page logged at SEVERE (uncaught errors, failed loads). */
	static List<LogEntry> consoleErrors(WebDriver browser) {
		return browser.manage()
			.logs()
			.get(LogType.BROWSER)
			.getAll()
			.stream()
			.filter((entry) -> entry.getLevel().intValue() >= Level.SEVERE.intValue())
			.toList();
	}

	static WebDriver startBrowser() {
		File chromium = firstExecutable("chromium", "chromium-browser", "google-chrome");
		File driver = firstExecutable("chromedriver");
		if (chromium == null || driver == null) {
			Assumptions.abort("No headless Chromium: install the Debian packages chromium and chromium-driver"
					+ " (apt-get install chromium chromium-driver; .ci/run does it when chromedriver is missing)");
		}
		ChromeOptions options = new ChromeOptions();
		options.setBinary(chromium);
		options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1100");
		LoggingPreferences logs = new LoggingPreferences();
		logs.enable(LogType.BROWSER, Level.ALL);
		options.setCapability("goog:loggingPrefs", logs);
		ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(driver)
			.usingAnyFreePort()
			.build();
		return new ChromeDriver(service, options);
	}

	private static File firstExecutable(String... names) {
		for (String name : names) {
			for (String directory : System.getenv().getOrDefault("PATH", "/usr/bin").split(File.pathSeparator)) {
				File candidate = new File(directory, name);
				if (candidate.canExecute()) {
					return candidate;
				}
			}
		}
		return null;
	}

}
