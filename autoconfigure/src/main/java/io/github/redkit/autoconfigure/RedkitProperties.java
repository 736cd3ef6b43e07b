package io.github.redkit.autoconfigure;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Properties shared by every Redkit capability.
 */
@ConfigurationProperties("redkit")
public class RedkitProperties {

	/**
	 * Prefix of every key Redkit writes. Must not contain '{', '}', whitespace or control
	 * characters.
	 */
	private String keyPrefix = "redkit";

	public String getKeyPrefix() {
		return this.keyPrefix;
	}

	public void setKeyPrefix(String keyPrefix) {
		this.keyPrefix = keyPrefix;
	}

}
