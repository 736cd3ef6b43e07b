package io.github.redkit.upgrade;

import java.util.List;

/**
 * A version of Redkit and its class path (the workload's classes first).
 *
 * @param name the version
 * @param classPath the class path
 * @param properties what its instances get besides the fleet's properties (none, but to
 * see the checkers catch a version that reads nothing of the other's records)
 */
record Version(String name, String classPath, List<String> properties) {

}
