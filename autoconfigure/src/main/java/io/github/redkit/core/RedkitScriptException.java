package io.github.redkit.core;

import org.jspecify.annotations.Nullable;

import org.springframework.dao.NonTransientDataAccessException;

/**
 * Redis answered a Redkit script with an error; the message names the script.
 */
public class RedkitScriptException extends NonTransientDataAccessException {

	private final String scriptName;

	/**
	 * Creates an exception.
	 * @param scriptName the script that failed
	 * @param cause what Redis answered
	 */
	public RedkitScriptException(String scriptName, Throwable cause) {
		super("Redkit script '" + scriptName + "' failed: " + rootMessage(cause), cause);
		this.scriptName = scriptName;
	}

	/**
	 * The name of the script that failed.
	 * @return the name
	 */
	public String getScriptName() {
		return this.scriptName;
	}

	private static @Nullable String rootMessage(Throwable cause) {
		Throwable root = cause;
		while (root.getCause() != null && root.getCause() != root) {
			root = root.getCause();
		}
		return root.getMessage();
	}

}
