package io.github.redkit.integration.autoconfigure;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Properties of the Spring Integration lock registry backed by Redkit's locks.
 */
@ConfigurationProperties("redkit.integration.lock-registry")
public class IntegrationLockRegistryProperties {

	/**
	 * Whether to provide a Spring Integration LockRegistry backed by Redkit's locks.
	 */
	private boolean enabled = true;

	/**
	 * Name of the registry: the metrics name of its locks and the start of their keys.
	 */
	private String name = "integration";

	/**
	 * How long a lock lives unless renewed; when not set, redkit.lock.lease-time, renewed
	 * while the lock is held.
	 */
	private @Nullable Duration lease;

	/**
	 * How many locks the registry keeps in memory; beyond it the least recently used ones
	 * that no thread holds are dropped.
	 */
	private int cacheCapacity = 256;

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

	public @Nullable Duration getLease() {
		return this.lease;
	}

	public void setLease(@Nullable Duration lease) {
		this.lease = lease;
	}

	public int getCacheCapacity() {
		return this.cacheCapacity;
	}

	public void setCacheCapacity(int cacheCapacity) {
		this.cacheCapacity = cacheCapacity;
	}

}
