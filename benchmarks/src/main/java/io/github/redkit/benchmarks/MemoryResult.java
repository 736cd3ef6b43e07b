package io.github.redkit.benchmarks;

/**
 * What one contender of the memory benchmark keeps in Redis per identifier.
 *
 * @param contender the contender's name
 * @param windows the windows it counts
 * @param oneCall after one call per identifier
 * @param wholeLimit after a whole limit's calls per identifier
 */
record MemoryResult(String contender, String windows, Measurement oneCall, Measurement wholeLimit) {

	boolean isRedkit() {
		return this.contender.startsWith("Redkit");
	}

	/**
	 * One measurement: {@code used_memory} before and after creating the identifiers, and
	 * the keys left.
	 *
	 * @param identifiers the identifiers created
	 * @param calls the calls per identifier
	 * @param allowed the calls allowed
	 * @param nanos how long the calls took
	 * @param before {@code used_memory} before
	 * @param after {@code used_memory} after
	 * @param keys {@code DBSIZE} after
	 * @param keysPerIdentifier the keys one identifier makes
	 * @param stores what one identifier's keys are
	 */
	record Measurement(int identifiers, int calls, long allowed, long nanos, long before, long after, long keys,
			long keysPerIdentifier, String stores) {

		/**
		 * The identifiers whose state was still there at the end: state that expired
		 * during the run is neither in the memory nor in the keys counted.
		 * @return the live identifiers
		 */
		double liveIdentifiers() {
			return (double) this.keys / this.keysPerIdentifier;
		}

		double bytesPerIdentifier() {
			return (this.after - this.before) / liveIdentifiers();
		}

		long refused() {
			return (long) this.identifiers * this.calls - this.allowed;
		}

		@Override
		public String toString() {
			return String.format(
					"%,.0f B/identifier, %d keys/identifier, %,.0f of %,d identifiers live, %.1f s, "
							+ "%,d calls refused; %s",
					bytesPerIdentifier(), this.keysPerIdentifier, liveIdentifiers(), this.identifiers, this.nanos / 1e9,
					refused(), this.stores);
		}

	}

}
