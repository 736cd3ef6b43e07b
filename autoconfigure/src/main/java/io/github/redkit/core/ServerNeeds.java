package io.github.redkit.core;

import java.util.Set;

/**
 * What one capability needs from the Redis server. Each capability's auto-configuration
 * contributes one as a bean, so that the server doctor checks the needs of the
 * capabilities in use without knowing any of them.
 *
 * @param capability the capability's name, as the doctor's findings name it
 * @param needs what it needs
 */
public record ServerNeeds(String capability, Set<ServerNeed> needs) {

	/**
	 * Creates the needs of a capability.
	 * @param capability the capability's name
	 * @param needs what it needs, copied
	 */
	public ServerNeeds {
		needs = Set.copyOf(needs);
	}

	/**
	 * The needs of a capability.
	 * @param capability the capability's name
	 * @param needs what it needs
	 * @return the needs
	 */
	public static ServerNeeds of(String capability, ServerNeed... needs) {
		return new ServerNeeds(capability, Set.of(needs));
	}

}
