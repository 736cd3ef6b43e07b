package io.github.redkit.testsupport;

import java.io.IOException;

/**
 * A second JVM for {@link FreePortsTests}: finds a port, prints it, and holds it until
 * its standard input closes.
 */
public final class PortHolder {

	private PortHolder() {
	}

	public static void main(String[] args) throws IOException {
		System.out.println(FreePorts.find(false));
		System.out.flush();
		while (System.in.read() != -1) {
			// held until the test closes our input
		}
	}

}
