package io.github.redkit.faults;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redkit.testsupport.RedisNode;
import io.github.redkit.testsupport.TcpProxy;

/**
 * The real servers of a run and the links to them: every connection an instance makes, to
 * its own Redis or to another region's, goes through a proxy of its own, so that the
 * nemesis can delay, partition or cut that one link.
 */
final class Rig implements AutoCloseable {

	private final List<RedisNode> nodes;

	private final List<TcpProxy> links = new CopyOnWriteArrayList<>();

	private final Map<TcpProxy, Integer> linkedNodes = new ConcurrentHashMap<>();

	private volatile Map<String, byte[]> aimedAt = Map.of();

	private volatile byte[][] aims = new byte[0][];

	// the cuts armed since the aim was set: where the turn among equally cut scripts
	// starts
	private final AtomicInteger armed = new AtomicInteger();

	Rig(List<RedisNode> nodes) {
		this.nodes = List.copyOf(nodes);
	}

	List<RedisNode> nodes() {
		return this.nodes;
	}

	RedisNode node(int index) {
		return this.nodes.get(Math.floorMod(index, this.nodes.size()));
	}

	/**
	 * A new link to a node.
	 * @param node the node's index
	 * @return the port to connect to
	 */
	int link(int node) {
		TcpProxy proxy = TcpProxy.start(node(node).port());
		this.links.add(proxy);
		this.linkedNodes.put(proxy, Math.floorMod(node, this.nodes.size()));
		return proxy.port();
	}

	/**
	 * Points every link to a node at the port it answers on now (after a failover).
	 * @param node the node
	 */
	void retarget(RedisNode node) {
		int index = this.nodes.indexOf(node);
		this.linkedNodes.forEach((proxy, linked) -> {
			if (linked == index) {
				proxy.retarget(node.port());
			}
		});
	}

	TcpProxy linkAt(int index) {
		return this.links.get(Math.floorMod(index, this.links.size()));
	}

	/**
	 * Makes every later cut after a write wait for a call of one script (a request with
	 * its SHA-1, see {@link TcpProxy#cutAfterNextWrite(byte[]...)}): each cut the script
	 * cut the fewest times so far, in turn among equals, so that every script is cut
	 * whatever its share of the requests (a rarely called one stays aimed at, on every
	 * link armed, until it is cut): a scenario's way to make the cuts hit the commands it
	 * is about.
	 * @param markers each script's SHA-1, by its name
	 */
	void aimCutsAfterWrite(Map<String, byte[]> markers) {
		this.aimedAt = Map.copyOf(markers);
		this.aims = markers.values().toArray(byte[][]::new);
	}

	/**
	 * Arms a cut after the next write on a link, or after the next call of the aimed
	 * script cut the fewest times so far.
	 * @param index the link
	 */
	void cutAfterNextWrite(int index) {
		byte[][] aims = this.aims;
		if (aims.length > 0) {
			linkAt(index).cutAfterNextWrite(leastCut(aims));
		}
		else {
			linkAt(index).cutAfterNextWrite();
		}
	}

	private byte[] leastCut(byte[][] aims) {
		int turn = this.armed.getAndIncrement();
		byte[] least = null;
		int fewest = Integer.MAX_VALUE;
		for (int i = 0; i < aims.length; i++) {
			byte[] aim = aims[(turn + i) % aims.length];
			int cuts = this.links.stream().mapToInt((link) -> link.cutsAfterWrite(aim)).sum();
			if (cuts < fewest) {
				least = aim;
				fewest = cuts;
			}
		}
		return least;
	}

	/**
	 * How many cuts after a write aimed at each script were done (the server answered the
	 * call, the client never saw it), over every link.
	 * @return the cuts, by script name
	 */
	Map<String, Integer> aimedCuts() {
		Map<String, Integer> cuts = new TreeMap<>();
		this.aimedAt.forEach((script, marker) -> cuts.put(script,
				this.links.stream().mapToInt((link) -> link.cutsAfterWrite(marker)).sum()));
		return cuts;
	}

	List<TcpProxy> links() {
		return List.copyOf(this.links);
	}

	@Override
	public void close() {
		this.links.forEach(TcpProxy::close);
		this.nodes.forEach(RedisNode::close);
	}

}
