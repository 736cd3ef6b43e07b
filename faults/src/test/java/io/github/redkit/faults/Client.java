package io.github.redkit.faults;

import java.util.Random;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * One client of a run: its number in the history, the instance it runs in, and its own
 * random numbers drawn from the run's seed.
 *
 * @param process its number in the history
 * @param instance the application instance it uses
 * @param random its random numbers
 * @param history where its operations go
 */
record Client(int process, ConfigurableApplicationContext instance, Random random, History history) {

	<T> T bean(Class<T> type) {
		return this.instance.getBean(type);
	}

}
