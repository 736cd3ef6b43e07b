package io.github.redkit.sample.ads;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.github.redkit.budget.Reservation;
import io.github.redkit.idempotency.StepInProgressException;
import io.github.redkit.idempotency.StepOutOfOrderException;

import org.springframework.stereotype.Service;

/**
 * Plays a broker that delivers every auction event one to three times, shuffled, on
 * several threads (an event that came too early goes back to the queue, as a broker would
 * redeliver it), then checks that the budget is exactly the initial amount minus the
 * committed prices.
 */
@Service
public class AuctionReplay {

	private final Campaigns campaigns;

	private final Auctions auctions;

	public AuctionReplay(Campaigns campaigns, Auctions auctions) {
		this.campaigns = campaigns;
		this.auctions = auctions;
	}

	public Map<String, Object> replay(int count, long budget, long seed) throws InterruptedException {
		String campaign = "replay-" + UUID.randomUUID().toString().substring(0, 8);
		this.campaigns.create(campaign, budget);
		Random random = new Random(seed);
		List<Event> events = new ArrayList<>();
		Map<String, Long> prices = new LinkedHashMap<>();
		for (int i = 0; i < count; i++) {
			String auction = "a" + i;
			long bid = 100 + random.nextInt(900);
			Event outcome = random.nextInt(10) < 7 ? new Event("notice", auction, 50 + random.nextInt((int) bid - 49))
					: new Event("timeout", auction, 0);
			if (outcome.type().equals("notice")) {
				prices.put(auction, outcome.amount());
			}
			for (Event event : List.of(new Event("bid", auction, bid), outcome)) {
				int copies = 1 + random.nextInt(3);
				for (int c = 0; c < copies; c++) {
					events.add(event);
				}
			}
		}
		Collections.shuffle(events, random);
		ConcurrentLinkedQueue<Event> queue = new ConcurrentLinkedQueue<>(events);
		AtomicLong deliveries = new AtomicLong();
		AtomicLong redelivered = new AtomicLong();
		ExecutorService pool = Executors.newFixedThreadPool(4);
		for (int t = 0; t < 4; t++) {
			pool.execute(() -> {
				Event event;
				while ((event = queue.poll()) != null && deliveries.get() < 50L * events.size()) {
					deliveries.incrementAndGet();
					try {
						deliver(campaign, event);
					}
					catch (StepOutOfOrderException | StepInProgressException ex) {
						redelivered.incrementAndGet();
						queue.add(event);
					}
				}
			});
		}
		pool.shutdown();
		pool.awaitTermination(2, TimeUnit.MINUTES);
		long committed = 0;
		long complete = 0;
		for (int i = 0; i < count; i++) {
			String auction = "a" + i;
			Reservation reservation = this.auctions.reservation(campaign, auction);
			Long price = prices.get(auction);
			if (reservation != null && price != null) {
				committed += Math.min(price, reservation.amount());
			}
			Set<String> steps = this.auctions.recordedSteps(campaign, auction);
			if (steps.size() == 2 && steps.contains("bid")) {
				complete++;
			}
		}
		long remaining = this.campaigns.remaining(campaign);
		Map<String, Object> report = new LinkedHashMap<>();
		report.put("campaign", campaign);
		report.put("auctions", count);
		report.put("events", events.size());
		report.put("duplicates", events.size() - 2L * count);
		report.put("deliveries", deliveries.get());
		report.put("redeliveredTooEarly", redelivered.get());
		report.put("auctionsWithBidAndOneOutcome", complete);
		report.put("initialBudget", budget);
		report.put("committed", committed);
		report.put("expectedRemaining", budget - committed);
		report.put("remaining", remaining);
		report.put("exact", remaining == budget - committed && complete == count);
		return report;
	}

	private void deliver(String campaign, Event event) {
		switch (event.type()) {
			case "bid" -> this.auctions.bid(campaign, event.auction(), event.amount());
			case "notice" -> this.auctions.notice(campaign, event.auction(), event.amount());
			default -> this.auctions.timeout(campaign, event.auction());
		}
	}

	record Event(String type, String auction, long amount) {
	}

}
