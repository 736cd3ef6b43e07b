package io.github.redkit.sample.ads;

import java.net.URI;
import java.util.Map;

import io.github.redkit.budget.Reservation;
import io.github.redkit.budget.SpendResult;
import io.github.redkit.ratelimit.RateLimited;
import io.github.redkit.sample.web.AdminGuard;
import io.github.redkit.sample.web.ApiException;
import io.github.redkit.sample.web.Validation;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * Campaigns, auction events and the replay demonstration.
 */
@RestController
class AdsController {

	private static final long MAX_AMOUNT = 1_000_000_000_000L;

	private final Campaigns campaigns;

	private final Auctions auctions;

	private final AuctionReplay replay;

	private final Settlement settlement;

	private final AdminGuard admin;

	AdsController(Campaigns campaigns, Auctions auctions, AuctionReplay replay, Settlement settlement,
			AdminGuard admin) {
		this.campaigns = campaigns;
		this.auctions = auctions;
		this.replay = replay;
		this.settlement = settlement;
		this.admin = admin;
	}

	@PostMapping("/api/campaigns")
	@ResponseStatus(HttpStatus.CREATED)
	Map<String, Object> create(@RequestBody(required = false) NewCampaign campaign) {
		if (campaign == null) {
			throw ApiException.badRequest("Send {\"id\": \"...\", \"budget\": n}");
		}
		String id = Validation.id("id", campaign.id());
		long budget = Validation.positive("budget", campaign.budget(), MAX_AMOUNT);
		this.campaigns.create(id, budget);
		return Map.of("id", id, "remaining", budget);
	}

	// answered once per Idempotency-Key (redkit.idempotency.http.routes): a client that
	// retries after a timeout pays once
	@PostMapping("/api/campaigns/{id}/payments")
	ResponseEntity<Map<String, Object>> pay(@PathVariable String id, @RequestBody(required = false) Amount payment) {
		if (payment == null) {
			throw ApiException.badRequest("Send {\"amount\": n}");
		}
		long amount = Validation.positive("amount", payment.amount(), MAX_AMOUNT);
		Map<String, Object> paid = this.campaigns.pay(Validation.id("id", id), amount);
		return ResponseEntity.created(URI.create("/api/campaigns/" + id + "/payments/" + paid.get("payment")))
			.body(paid);
	}

	@GetMapping("/api/campaigns/{id}")
	Map<String, Object> campaign(@PathVariable String id) {
		return Map.of("id", id, "remaining", this.campaigns.remaining(Validation.id("id", id)));
	}

	@PostMapping("/api/campaigns/{id}/auctions/{auction}/bid")
	Map<String, Object> bid(@PathVariable String id, @PathVariable String auction,
			@RequestBody(required = false) Amount amount) {
		String campaign = existing(id);
		Reservation reservation = this.auctions.bid(campaign, Validation.id("auction", auction),
				Validation.positive("amount", (amount != null) ? amount.amount() : null, MAX_AMOUNT));
		return Map.of("reserved", reservation != null, "remaining", this.campaigns.remaining(campaign));
	}

	@PostMapping("/api/campaigns/{id}/auctions/{auction}/notice")
	SpendResult notice(@PathVariable String id, @PathVariable String auction,
			@RequestBody(required = false) Amount price) {
		return this.auctions.notice(existing(id), Validation.id("auction", auction),
				Validation.positive("amount", (price != null) ? price.amount() : null, MAX_AMOUNT));
	}

	@PostMapping("/api/campaigns/{id}/auctions/{auction}/timeout")
	Map<String, Object> timeout(@PathVariable String id, @PathVariable String auction) {
		String campaign = existing(id);
		this.auctions.timeout(campaign, Validation.id("auction", auction));
		return Map.of("remaining", this.campaigns.remaining(campaign));
	}

	@PostMapping("/api/ads/replay")
	@RateLimited(limit = 10, period = "1m") // a demo that writes thousands of keys:
											// shared cap
	Map<String, Object> replay(@RequestBody(required = false) ReplayRequest request) throws InterruptedException {
		long count = Validation.positive("auctions",
				(request != null && request.auctions() != null) ? request.auctions() : 200L, 5_000);
		long budget = (request != null && request.budget() != null)
				? Validation.positive("budget", request.budget(), MAX_AMOUNT) : count * 1000;
		long seed = (request != null && request.seed() != null) ? request.seed() : System.nanoTime();
		return this.replay.replay((int) count, budget, seed);
	}

	@PostMapping("/api/admin/settle")
	Map<String, Object> settle(@RequestHeader(value = "X-Admin-Token", required = false) String token) {
		this.admin.check(token);
		return this.settlement.settle();
	}

	private String existing(String id) {
		String campaign = Validation.id("id", id);
		if (!this.campaigns.exists(campaign)) {
			throw ApiException.notFound("No campaign '" + campaign + "'");
		}
		return campaign;
	}

	record NewCampaign(String id, Long budget) {
	}

	record Amount(Long amount) {
	}

	record ReplayRequest(Long auctions, Long budget, Long seed) {
	}

}
