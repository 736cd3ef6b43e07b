package io.github.redkit.testsupport;

import java.io.IOException;
import java.util.List;

/**
 * A second JVM for {@link FreePortsTests}: finds a port, prints it, and holds it until
 * its standard input closes. With the argument {@code reserve-again} it first asks for
 * the port it holds once more, as a JVM does that picks, at random, a port it claims
 * while that port's server is stopped; with {@code reserve <port>} it prints whether it
 * may use that port and ends.
 */
public final class PortHolder {

	private PortHolder() {
	}

	public static void main(String[] args) throws IOException {
		if (args.length == 2 && args[0].equals("reserve")) {
			System.out.println(FreePorts.reserve(Integer.parseInt(args[1])));
			return;
		}
		int port = FreePorts.find(false);
		if (List.of(args).contains("reserve-again") && FreePorts.reserve(port)) {
			throw new IllegalStateException("port " + port + " handed out twice in one JVM");
		}
		System.out.println(port);
		System.out.flush();
		while (System.in.read() != -1) {
			// held until the test closes our input
		}
	}

}
