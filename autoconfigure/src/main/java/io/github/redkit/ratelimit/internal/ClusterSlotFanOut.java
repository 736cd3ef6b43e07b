package io.github.redkit.ratelimit.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.redkit.core.internal.LuaScript;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.ratelimit.RateLimitDecision;
import io.github.redkit.ratelimit.RateLimitWindow;

import org.springframework.data.redis.connection.ClusterSlotHashUtil;

/**
 * Sends a decision of several identifiers to Redis: one script for all of them on a
 * standalone server (or Sentinel); on a cluster one script per slot, the slots
 * concurrently, combined into one decision. What a slot took is given back
 * ({@link PermitGiveBack}) when another slot refuses the call, or when the slots do not
 * all answer in time.
 */
final class ClusterSlotFanOut {

	private final RedisScriptRunner runner;

	private final Duration timeout;

	private final PermitGiveBack giveBack;

	private final boolean cluster;

	/**
	 * Creates the fan-out.
	 * @param runner runs the scripts
	 * @param timeout how long a decision of one slot waits for Redis
	 * @param giveBack gives back what a slot took for a call another slot refused
	 */
	ClusterSlotFanOut(RedisScriptRunner runner, Duration timeout, PermitGiveBack giveBack) {
		this.runner = runner;
		this.timeout = timeout;
		this.giveBack = giveBack;
		this.cluster = runner.isCluster();
	}

	/**
	 * Sends the decision: one script per cluster slot, the slots concurrently. When
	 * several slots do not all answer in time, what the ones that allowed took is given
	 * back whenever they answer.
	 * @param limit the limit
	 * @param keys the identifiers, more than one
	 * @param cost the permits the call takes
	 * @return what the call took
	 */
	CompletableFuture<TakenPermits> decide(PreparedLimit limit, List<String> keys, int cost) {
		byte[][] args = limit.arguments(cost);
		LuaScript<byte[]> script = limit.script();
		List<List<String>> groups = groupBySlot(limit, keys);
		if (groups.size() == 1) {
			return this.runner.executeAsync(script, this.timeout, groups.get(0), args)
				.thenApply(
						(reply) -> new TakenPermits(limit, cost, limit.decision(reply), groups, List.of(reply), null));
		}
		List<CompletableFuture<byte[]>> answers = new ArrayList<>(groups.size());
		for (List<String> group : groups) {
			// no timeout on the call itself: a slot's late answer is what tells whether
			// it took permits to give back
			answers.add(this.runner.executeAsync(script, group, args));
		}
		// settled once: by every slot's answer, or by a failure, a timeout or the caller
		// giving up, after which every slot that took permits gives them back whenever
		// it answers
		AtomicBoolean settled = new AtomicBoolean();
		CompletableFuture<TakenPermits> decision = new CompletableFuture<>();
		CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).whenComplete((all, ex) -> {
			if (ex != null) {
				decision.completeExceptionally(ex);
			}
			else if (settled.compareAndSet(false, true)) {
				settle(limit, groups, answers, cost, decision);
			}
		});
		decision.whenComplete((result, ex) -> {
			if (ex != null && settled.compareAndSet(false, true)) {
				giveBack(limit, groups, answers, cost);
			}
		});
		return decision;
	}

	/**
	 * Completes the caller's decision with every slot's answer. What the slots took is
	 * given back when another slot refused the call, and also when the caller's decision
	 * was completed meanwhile (its timeout, a cancel): the caller got the failure mode,
	 * not this decision.
	 */
	private void settle(PreparedLimit limit, List<List<String>> groups, List<CompletableFuture<byte[]>> answers,
			int cost, CompletableFuture<TakenPermits> decision) {
		boolean delivered;
		boolean refused;
		try {
			List<byte[]> replies = answers.stream().map(CompletableFuture::join).toList();
			RateLimitDecision combined = combine(limit, replies);
			refused = !combined.allowed();
			delivered = decision.complete(new TakenPermits(limit, cost, combined, groups, replies, null));
		}
		catch (RuntimeException | Error failure) {
			refused = true;
			delivered = decision.completeExceptionally(failure);
		}
		if (refused || !delivered) {
			giveBack(limit, groups, answers, cost);
		}
	}

	/**
	 * Gives back what each slot that allowed the call took, whenever it answers.
	 */
	private void giveBack(PreparedLimit limit, List<List<String>> groups, List<CompletableFuture<byte[]>> answers,
			int cost) {
		for (int i = 0; i < answers.size(); i++) {
			List<String> group = groups.get(i);
			answers.get(i).thenAccept((reply) -> {
				if (limit.decision(reply).allowed()) {
					this.giveBack.giveBack(limit, group, cost, reply);
				}
			});
		}
	}

	private RateLimitDecision combine(PreparedLimit limit, List<byte[]> replies) {
		List<RateLimitDecision> decisions = replies.stream().map(limit::decision).toList();
		boolean refused = decisions.stream().anyMatch((decision) -> !decision.allowed());
		RateLimitDecision result = decisions.get(0);
		Set<RateLimitWindow> exceeded = new LinkedHashSet<>();
		for (RateLimitDecision decision : decisions) {
			exceeded.addAll(decision.exceeded());
			if (!refused) {
				result = (decision.remaining() < result.remaining()) ? decision : result;
			}
			else if (!decision.allowed()
					&& (result.allowed() || decision.retryAfter().compareTo(result.retryAfter()) > 0)) {
				result = decision;
			}
		}
		if (!refused) {
			return result;
		}
		// every window that refused on any slot, in the policy's order
		List<RateLimitWindow> inOrder = limit.policy().windows().stream().filter(exceeded::contains).toList();
		return new RateLimitDecision(false, result.remaining(), result.retryAfter(), result.resetAfter(),
				result.window(), result.policy(), inOrder, result.decidedAt());
	}

	private List<List<String>> groupBySlot(PreparedLimit limit, List<String> identifiers) {
		Map<Integer, List<String>> groups = new LinkedHashMap<>();
		for (String identifier : identifiers) {
			String key = limit.key(identifier);
			int slot = this.cluster ? ClusterSlotHashUtil.calculateSlot(key) : 0;
			groups.computeIfAbsent(slot, (s) -> new ArrayList<>()).add(key);
		}
		return new ArrayList<>(groups.values());
	}

}
