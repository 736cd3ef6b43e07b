package io.github.redkit.shedlock.autoconfigure;

import io.github.redkit.shedlock.RedkitLockProvider;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Properties of the ShedLock adapter.
 */
@ConfigurationProperties("redkit.shedlock")
public class RedkitShedLockProperties {

	/**
	 * Whether to provide a ShedLock LockProvider backed by Redkit's locks.
	 */
	private boolean enabled = true;

	/**
	 * Name of the ShedLock locks in Redkit's lock metrics (one name for all tasks).
	 */
	private String name = RedkitLockProvider.DEFAULT_NAME;

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public String getName() {
		return this.name;
	}

	public void setName(String name) {
		this.name = name;
	}

}
