package io.github.redkit.region;

/**
 * A budget change refused because this region's Redis does not hold the region's own slot
 * of its regional state: the Redis is new or lost its data, and the region has not taken
 * its slot back from its peers yet (its replicators do so at their next round). The peers
 * may already have given back what the other regions hold, so a change now could spend
 * again what the region spent before the loss; nothing was changed. Counters keep
 * counting meanwhile.
 */
public class RegionRecoveringException extends IllegalStateException {

	private final String region;

	private final String budget;

	/**
	 * Creates an exception.
	 * @param region the region whose Redis does not hold its own slot
	 * @param budget the budget whose change was refused
	 */
	public RegionRecoveringException(String region, String budget) {
		super("Region '" + region + "' does not hold its own slot of budget '" + budget
				+ "' yet (its Redis is new or lost its data, and the region has not taken its slot back from its"
				+ " peers): budget changes are refused until it has; nothing was changed");
		this.region = region;
		this.budget = budget;
	}

	/**
	 * The region whose Redis does not hold its own slot.
	 * @return the region's name
	 */
	public String getRegion() {
		return this.region;
	}

	/**
	 * The budget whose change was refused.
	 * @return the budget's name
	 */
	public String getBudget() {
		return this.budget;
	}

}
