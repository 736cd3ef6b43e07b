package io.github.redkit.sample.regions;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import io.github.redkit.ratelimit.RateLimited;
import io.github.redkit.region.RegionRecoveringException;
import io.github.redkit.region.RegionalBudgets;
import io.github.redkit.region.RegionalBudgets.RegionalSpend;
import io.github.redkit.sample.web.Validation;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.annotation.Profile;
import org.springframework.context.event.EventListener;
import org.springframework.web.bind.annotation.CrossOrigin;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The {@code regions} profile's endpoints: one campaign budget shared by the regions,
 * spent in whichever region a request reaches and read as this region sees it, so that
 * {@code regions.html} can show every region's view converging, and an offer rate limited
 * across the regions.
 */
@RestController
@Profile("regions")
class RegionCampaignController {

	static final String CAMPAIGN = "campaign";

	private final RegionalBudgets budgets;

	private final String region;

	private final @Nullable String peerUrl;

	private final long initialBudget;

	RegionCampaignController(RegionalBudgets budgets, @Value("${redkit.regions.local}") String region,
			@Value("${sample.regions.peer-url:#{null}}") @Nullable String peerUrl,
			@Value("${sample.regions.campaign-budget:0}") long initialBudget) {
		this.budgets = budgets;
		this.region = region;
		this.peerUrl = peerUrl;
		this.initialBudget = initialBudget;
	}

	/**
	 * The region given a budget on its command line creates the campaign, once its
	 * replicators' first round gave it its incarnation (budget changes are refused until
	 * then, which takes milliseconds after start-up).
	 */
	@EventListener(ApplicationReadyEvent.class)
	void createCampaign() throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		while (this.initialBudget > 0) {
			try {
				this.budgets.create(CAMPAIGN, this.initialBudget);
				return;
			}
			catch (RegionRecoveringException ex) {
				if (System.nanoTime() > deadline) {
					throw ex;
				}
				Thread.sleep(20);
			}
		}
	}

	// the other region's page reads this region's view from its own origin
	@CrossOrigin
	@GetMapping("/api/regions/campaign")
	Map<String, Object> campaign() {
		Map<String, Object> view = new LinkedHashMap<>();
		view.put("region", this.region);
		view.put("remaining", this.budgets.remaining(CAMPAIGN));
		view.put("peerUrl", this.peerUrl);
		return view;
	}

	/**
	 * An offer shown for the campaign, rate limited across the regions: the
	 * {@code offers} limit is marked {@code global}, so each region counts the calls the
	 * other shipped it besides its own.
	 */
	@GetMapping("/api/regions/campaign/offer")
	@RateLimited("offers")
	Map<String, Object> offer() {
		return Map.of("region", this.region, "campaign", CAMPAIGN);
	}

	@PostMapping("/api/regions/campaign/spend")
	Map<String, Object> spend(@RequestParam(defaultValue = "10") long amount) {
		RegionalSpend spend = this.budgets.spend(CAMPAIGN, Validation.positive("amount", amount, 1_000_000),
				UUID.randomUUID().toString());
		return Map.of("region", this.region, "spent", spend.spent(), "remaining", spend.remaining());
	}

}
