package io.github.redkit.doctor.internal;

import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * What one Redis node told about itself: the settings {@code CONFIG GET} gave and the
 * fields {@code INFO} gave, each with why it refused, if it did.
 *
 * @param node the node's address, for the findings of a cluster
 * @param config the settings read, empty when refused
 * @param configRefused why {@code CONFIG GET} failed, {@code null} when it answered
 * @param info the {@code INFO} fields read, empty when refused
 * @param infoRefused why {@code INFO} failed, {@code null} when it answered
 * @param failure why nothing was read: a cluster's master marked failed ({@code fail} or
 * {@code fail?}) or one that did not answer; {@code null} when it was read
 */
record NodeSettings(String node, Map<String, String> config, @Nullable String configRefused, Map<String, String> info,
		@Nullable String infoRefused, @Nullable String failure) {

	NodeSettings {
		config = Map.copyOf(config);
		info = Map.copyOf(info);
	}

	NodeSettings(String node, Map<String, String> config, @Nullable String configRefused, Map<String, String> info,
			@Nullable String infoRefused) {
		this(node, config, configRefused, info, infoRefused, null);
	}

	/**
	 * A cluster's master whose settings could not be read at all.
	 * @param node the node's address
	 * @param failure why
	 * @return settings that hold nothing
	 */
	static NodeSettings failed(String node, String failure) {
		return new NodeSettings(node, Map.of(), null, Map.of(), null, failure);
	}

	/**
	 * A setting, from {@code CONFIG GET} or else from the {@code INFO} field that mirrors
	 * it.
	 * @param setting the setting's name
	 * @param infoField the {@code INFO} field's name, {@code null} when none mirrors it
	 * @return the value, {@code null} when neither told
	 */
	@Nullable String setting(String setting, @Nullable String infoField) {
		String value = this.config.get(setting);
		return (value != null || infoField == null) ? value : this.info.get(infoField);
	}

	/**
	 * Why a setting could not be read.
	 * @return the reasons the server gave
	 */
	String refusal() {
		StringBuilder reason = new StringBuilder();
		if (this.configRefused != null) {
			reason.append("CONFIG GET refused (").append(this.configRefused).append(')');
		}
		if (this.infoRefused != null) {
			reason.append((reason.length() > 0) ? ", " : "")
				.append("INFO refused (")
				.append(this.infoRefused)
				.append(')');
		}
		return (reason.length() > 0) ? reason.toString() : "not reported by the server";
	}

}
