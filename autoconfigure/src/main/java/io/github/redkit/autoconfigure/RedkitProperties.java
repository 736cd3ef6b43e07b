package io.github.redkit.autoconfigure;

import io.github.redkit.core.RedisKeyspace;

import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Properties shared by every Redkit capability.
 */
@ConfigurationProperties("redkit")
public class RedkitProperties implements InitializingBean {

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

	@Override
	public void afterPropertiesSet() {
		try {
			RedisKeyspace.validatePrefix(this.keyPrefix);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("Invalid redkit.key-prefix: " + ex.getMessage(), ex);
		}
	}

}
