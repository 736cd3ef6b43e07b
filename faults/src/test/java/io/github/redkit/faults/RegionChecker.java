package io.github.redkit.faults;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import io.github.redkit.faults.RegionScenario.Answer;
import io.github.redkit.faults.RegionScenario.View;

/**
 * Judges a {@link RegionScenario} history against docs/multi-region.md, over the whole
 * history. An unknown outcome may or may not have applied; a change a region acknowledged
 * before its Redis lost its data (restarted empty, or on an older snapshot: no AOF here)
 * may have been lost with it, as the docs' persistence table says ("what a region counted
 * and had not shipped when it lost its data ... is lost"), and may then be spent again. A
 * retried operation id is one change: applied once when any attempt says so.
 */
final class RegionChecker {

	static final String GUARANTEE = "counters: once faults heal, every region reads the exact sum of the acknowledged "
			+ "increments plus a subset of the unknown ones; allotted budget: every region's share and the total "
			+ "converge to exactly the budget − spent + refunded ± moved, no region's share reads below zero, no "
			+ "region spends more than it owned and the regions together never more than the budget; shared "
			+ "budget: converges exactly and each region spends at most the whole budget plus refunds (so R regions "
			+ "at most R × it); a retried give or borrow answers what it moved and moves nothing twice; a region "
			+ "refusing a change while recovering (`RegionRecoveringException`) applies nothing. Redis without AOF: "
			+ "a change acknowledged in a region before its Redis restarted empty, or acknowledged after the "
			+ "snapshot it restarted on, may be lost (and its amount spent again)";

	private final History history;

	private final int clientsPerInstance;

	private final List<Op> ops;

	private final List<View> finals = new ArrayList<>();

	private final List<String> violations = new ArrayList<>();

	RegionChecker(History history, int clientsPerInstance) {
		this.history = history;
		this.clientsPerInstance = clientsPerInstance;
		this.ops = history.ops().stream().filter((op) -> op.process() >= 0).toList();
		history.ops()
			.stream()
			.filter((op) -> op.process() < 0)
			.sorted((a, b) -> Integer.compare(b.process(), a.process()))
			.forEach((op) -> this.finals.add((View) op.value()));
	}

	List<String> check() {
		if (this.finals.stream().anyMatch((view) -> !view.sameTotals(this.finals.get(0)))) {
			this.violations.add("the regions did not converge once every fault healed: " + this.finals);
			return this.violations;
		}
		View last = this.finals.get(0);
		checkCounters(last);
		List<Group> groups = groups();
		checkRetries(groups);
		checkAllotted(last, groups.stream().filter((group) -> group.budget.equals(RegionScenario.ALLOTTED)).toList());
		checkShared(last, groups.stream().filter((group) -> group.budget.equals(RegionScenario.SHARED)).toList());
		return this.violations;
	}

	private void checkCounters(View last) {
		for (String counter : RegionScenario.COUNTERS) {
			long certain = 0;
			List<Long> maybe = new ArrayList<>();
			for (Op op : this.ops) {
				if (op.action().equals("increment") && op.key().equals(counter)) {
					if (op.ok() && !exposed(op)) {
						certain += op.amount();
					}
					else if (op.ok() || op.unknown()) {
						maybe.add(op.amount());
					}
				}
			}
			long total = last.counters().get(counter);
			if (!reachable(total - certain, maybe)) {
				this.violations.add(String.format(
						"counter %s: every region reads %d, acknowledged %d, and no subset of the %d unknown or "
								+ "possibly lost increments (sum %d) makes up the difference",
						counter, total, certain, maybe.size(), maybe.stream().mapToLong(Long::longValue).sum()));
			}
		}
	}

	/**
	 * Every attempt of one id that answered must answer what the change did: a give the
	 * same amount, a borrow no more than asked (a retry counts every attempt's).
	 */
	private void checkRetries(List<Group> groups) {
		for (Group group : groups) {
			List<Op> answered = group.ops.stream().filter(Op::ok).toList();
			if (group.action.startsWith("give") && answered.stream().map(RegionChecker::moved).distinct().count() > 1) {
				this.violations.add("a retried give answered different amounts: " + group.ops);
			}
			if (answered.stream().anyMatch((op) -> moved(op) > group.amount)) {
				this.violations.add("a transfer moved more than asked: " + group.ops);
			}
			if (group.action.equals("spend") && group.ops.stream()
				.anyMatch((op) -> op.ok() && !((Answer) op.value()).replayed() && ((Answer) op.value()).remaining() < 0
						&& group.budget.equals(RegionScenario.SHARED))) {
				this.violations.add("a shared spend left what its region sees below zero: " + group.ops);
			}
		}
	}

	private void checkAllotted(View last, List<Group> groups) {
		int regions = RegionScenario.REGIONS.size();
		long[] certain = new long[regions];
		long[] low = new long[regions];
		long[] high = new long[regions];
		long[] spent = new long[regions];
		long[] owned = new long[regions];
		Arrays.fill(certain, RegionScenario.SHARE);
		Arrays.fill(owned, RegionScenario.SHARE);
		long spentInAll = 0;
		long ownedInAll = RegionScenario.SHARE * regions;
		long total = RegionScenario.SHARE * regions;
		List<Long> maybe = new ArrayList<>();
		for (Group group : groups) {
			int r = group.region;
			long value = group.applied() ? group.moved() : group.amount;
			boolean sure = group.applied() && !group.exposed();
			long again = group.straddles() ? group.amount : 0;
			switch (group.kind()) {
				case "spend" -> {
					if (group.applied()) {
						spent[r] += value;
						spentInAll += value;
					}
					if (group.exposed()) {
						owned[r] += value;
						ownedInAll += value;
					}
					if (sure) {
						certain[r] -= value;
						total -= value;
					}
					else if (group.possible()) {
						low[r] -= value;
						maybe.add(-value);
					}
					if (again > 0) {
						low[r] -= again;
						maybe.add(-again);
					}
				}
				case "refund" -> {
					if (group.possible()) {
						owned[r] += value + again;
						ownedInAll += value + again;
					}
					if (again > 0) {
						high[r] += again;
						maybe.add(again);
					}
					if (sure) {
						certain[r] += value;
						total += value;
					}
					else if (group.possible()) {
						high[r] += value;
						maybe.add(value);
					}
				}
				case "give" -> {
					int receiver = RegionScenario.REGIONS.indexOf(group.action.substring("give:".length()));
					if (group.possible()) {
						owned[receiver] += value + again;
					}
					low[r] -= again;
					high[receiver] += again;
					if (group.exposed()) {
						owned[r] += value;
					}
					if (sure) {
						certain[r] -= value;
						certain[receiver] += value;
					}
					else if (group.possible()) {
						low[r] -= value;
						high[receiver] += value;
					}
				}
				case "borrow" -> {
					long slack = (group.applied() ? group.slack() : 0) + again;
					if (group.possible()) {
						owned[r] += value + slack;
					}
					if (group.applied()) {
						certain[r] += value;
					}
					high[r] += slack + (group.applied() ? 0 : (group.possible() ? value : 0));
					for (int lender = 0; lender < regions; lender++) {
						if (lender != r && group.possible()) {
							low[lender] -= value + slack;
						}
					}
				}
				default -> throw new IllegalStateException(group.action);
			}
		}
		for (int r = 0; r < regions; r++) {
			String region = RegionScenario.REGIONS.get(r);
			long share = last.shares().getOrDefault(region, 0L);
			if (share < certain[r] + low[r] || share > certain[r] + high[r]) {
				this.violations.add(String.format(
						"allotted budget: %s's share converged to %d, its own changes allow %d..%d (a give or borrow "
								+ "moved twice, or a change applied that was not acknowledged)",
						region, share, certain[r] + low[r], certain[r] + high[r]));
			}
			if (share < 0) {
				this.violations
					.add(String.format("allotted budget: %s's share converged below zero: %d", region, share));
			}
			if (spent[r] > owned[r]) {
				this.violations.add(String
					.format("allotted budget: %s acknowledged %d spent, more than it ever owned (%d, counting unknown "
							+ "and possibly lost changes)", region, spent[r], owned[r]));
			}
		}
		if (spentInAll > ownedInAll) {
			this.violations.add(String.format("allotted budget: the regions together acknowledged %d spent of %d",
					spentInAll, ownedInAll));
		}
		long sum = last.shares().values().stream().mapToLong(Long::longValue).sum();
		if (sum != last.allottedRemaining()) {
			this.violations.add("allotted budget: the shares " + last.shares() + " do not add up to the remaining "
					+ last.allottedRemaining());
		}
		if (!reachable(last.allottedRemaining() - total, maybe)) {
			this.violations.add(String.format(
					"allotted budget: every region reads %d left, acknowledged changes make %d, no subset of the "
							+ "%d unknown or possibly lost ones makes up the difference",
					last.allottedRemaining(), total, maybe.size()));
		}
		this.ops.stream()
			.filter((op) -> op.action().equals("share") && op.ok() && (Long) op.value() < 0)
			.forEach((op) -> this.violations.add("allotted budget: a region read its own share below zero: " + op));
	}

	private void checkShared(View last, List<Group> groups) {
		int regions = RegionScenario.REGIONS.size();
		long[] spent = new long[regions];
		long granted = RegionScenario.SHARED_AMOUNT;
		long total = RegionScenario.SHARED_AMOUNT;
		List<Long> maybe = new ArrayList<>();
		for (Group group : groups) {
			boolean sure = group.applied() && !group.exposed();
			long value = group.amount;
			if (group.straddles()) {
				maybe.add(group.kind().equals("spend") ? -value : value);
				granted += group.kind().equals("spend") ? 0 : value;
			}
			if (group.kind().equals("spend")) {
				if (group.applied() && !group.exposed()) {
					spent[group.region] += value;
				}
				if (sure) {
					total -= value;
				}
				else if (group.possible()) {
					maybe.add(-value);
				}
			}
			else {
				if (group.possible()) {
					granted += value;
				}
				if (sure) {
					total += value;
				}
				else if (group.possible()) {
					maybe.add(value);
				}
			}
		}
		for (int r = 0; r < regions; r++) {
			if (spent[r] > granted) {
				this.violations.add(String.format(
						"shared budget: %s acknowledged %d spent (not counting possibly lost spends), more than the "
								+ "budget and every refund (%d) it could ever see",
						RegionScenario.REGIONS.get(r), spent[r], granted));
			}
		}
		if (!reachable(last.sharedRemaining() - total, maybe)) {
			this.violations.add(String.format(
					"shared budget: every region reads %d left, acknowledged changes make %d, no subset of the %d "
							+ "unknown or possibly lost ones makes up the difference",
					last.sharedRemaining(), total, maybe.size()));
		}
	}

	/**
	 * Whether an acknowledged change of a region may have been lost with its Redis' data:
	 * acknowledged before it restarted empty, or after the snapshot it restarted on.
	 */
	private boolean exposed(Op op) {
		int node = RegionScenario.regionOf(RegionScenario.instanceOf(op.process(), this.clientsPerInstance));
		for (FaultRecord fault : this.history.faults()) {
			if (Math.floorMod(fault.event().target(), RegionScenario.REGIONS.size()) != node) {
				continue;
			}
			if (fault.event().fault() == Fault.RESTART_EMPTY && op.invoked() <= fault.healed()) {
				return true;
			}
			if (fault.event().fault().keepsWhatCameBefore() && op.completed() >= fault.started()
					&& (op.invoked() <= fault.healed() || clockBehind(node, fault))) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Whether the region's Redis came back on a snapshot with its clock behind where it
	 * had been: the docs' limit ("noticed ... only if the Redis host's clock is not
	 * behind the time of the last entry shipped before"), so what it counts after may
	 * stay hidden under the older values the peers hold.
	 */
	private boolean clockBehind(int node, FaultRecord restart) {
		long offset = 0;
		long highest = 0;
		for (FaultRecord fault : this.history.faults()) {
			if (fault.event().fault() == Fault.CLOCK_JUMP && fault.started() < restart.started()
					&& Math.floorMod(fault.event().target(), RegionScenario.REGIONS.size()) == node) {
				offset += fault.event().strength();
				highest = Math.max(highest, offset);
			}
		}
		return offset < highest;
	}

	private List<Group> groups() {
		Map<String, Group> groups = new LinkedHashMap<>();
		for (Op op : this.ops) {
			if (op.key().contains("#")) {
				groups
					.computeIfAbsent(op.key(),
							(key) -> new Group(key.substring(0, key.indexOf('#')), op.action(),
									RegionScenario
										.regionOf(RegionScenario.instanceOf(op.process(), this.clientsPerInstance)),
									op.amount(), new ArrayList<>()))
					.ops()
					.add(op);
			}
		}
		return new ArrayList<>(groups.values());
	}

	private static long moved(Op op) {
		return ((Answer) op.value()).moved();
	}

	/**
	 * Whether some subset of the possible changes adds up to the difference.
	 */
	static boolean reachable(long difference, List<Long> possible) {
		long offset = -possible.stream().filter((value) -> value < 0).mapToLong(Long::longValue).sum();
		long max = possible.stream().filter((value) -> value > 0).mapToLong(Long::longValue).sum();
		if (difference < -offset || difference > max) {
			return false;
		}
		BigInteger sums = BigInteger.ONE.shiftLeft((int) offset);
		for (long value : possible) {
			sums = sums.or((value >= 0) ? sums.shiftLeft((int) value) : sums.shiftRight((int) -value));
		}
		return sums.testBit((int) (difference + offset));
	}

	/**
	 * Every attempt of one budget change (one operation id).
	 */
	private final class Group {

		private final String budget;

		private final String action;

		private final int region;

		private final long amount;

		private final List<Op> ops;

		Group(String budget, String action, int region, long amount, List<Op> ops) {
			this.budget = budget;
			this.action = action;
			this.region = region;
			this.amount = amount;
			this.ops = ops;
		}

		List<Op> ops() {
			return this.ops;
		}

		String kind() {
			return this.action.startsWith("give") ? "give" : this.action;
		}

		boolean applied() {
			return this.ops.stream().anyMatch(Op::ok);
		}

		/** Whether it applied, or may have. */
		boolean possible() {
			return applied() || this.ops.stream().anyMatch(Op::unknown);
		}

		/**
		 * What it moved, by its last answer (a borrow's retry answers every attempt's).
		 */
		long moved() {
			return this.ops.stream().filter(Op::ok).mapToLong(RegionChecker::moved).max().orElse(0);
		}

		boolean exposed() {
			return this.ops.stream()
				.anyMatch((op) -> !op.outcome().equals(Outcome.REFUSED) && RegionChecker.this.exposed(op));
		}

		/**
		 * Whether its attempts straddle a loss of its region's data: the operation id is
		 * remembered on the region's Redis only, so a retry after the loss may apply the
		 * change a second time.
		 */
		boolean straddles() {
			long from = this.ops.get(0).invoked();
			long to = this.ops.get(this.ops.size() - 1).completed();
			return this.ops.size() > 1 && RegionChecker.this.history.faults()
				.stream()
				.anyMatch((fault) -> fault.event().fault().forgets() && fault.event().fault() != Fault.CLOCK_JUMP
						&& Math.floorMod(fault.event().target(), RegionScenario.REGIONS.size()) == this.region
						&& fault.overlaps(from, to));
		}

		/**
		 * What a borrow may hold beyond its answer: an ask that timed out still reaches
		 * the lender later, and what it gave sits in the borrower's share. The borrower
		 * asks the next region for what it still lacks, counting nothing from the ask
		 * that timed out, so each lender that did not answer may give up to the whole
		 * amount, once (it remembers the id): seed 1's borrow of 4 got 1 from {@code us}
		 * and, late, 4 from a frozen {@code eu} (docs/multi-region.md, "Giving and
		 * borrowing").
		 */
		long slack() {
			boolean late = this.ops.stream()
				.anyMatch((op) -> op.unknown()
						|| op.completed() - op.invoked() >= RegionScenario.REGION_TIMEOUT.toNanos() / 2);
			// a region that answered is not one that may still give late: with something
			// moved, one at least answered (a bound no looser than that: the slack widens
			// every lender's range too, where a lend made twice shows)
			int silent = RegionScenario.REGIONS.size() - 1 - ((moved() > 0) ? 1 : 0);
			return late ? this.amount * silent : 0;
		}

		@Override
		public String toString() {
			return this.ops.stream().map(Op::toString).collect(Collectors.joining("; "));
		}

	}

}
