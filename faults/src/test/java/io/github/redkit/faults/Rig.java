package io.github.redkit.faults;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.redkit.testsupport.RedisNode;
import io.github.redkit.testsupport.TcpProxy;
import org.jspecify.annotations.Nullable;

/**
 * The real servers of a run and the links to them: every connection an instance makes, to
 * its own Redis or to another region's, goes through a proxy of its own, so that the
 * nemesis can delay, partition or cut that one link.
 */
final class Rig implements AutoCloseable {

	private final List<RedisNode> nodes;

	private final List<TcpProxy> links = new CopyOnWriteArrayList<>();

	private final Map<TcpProxy, Integer> linkedNodes = new ConcurrentHashMap<>();

	private volatile byte @Nullable [][] cutsAfterWriteHit;

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
	 * Makes every later cut after a write wait for a request that contains one of the
	 * given byte sequences (a script's SHA-1): a scenario's way to make the cuts hit the
	 * commands it is about.
	 * @param markers the bytes
	 */
	void aimCutsAfterWrite(List<byte[]> markers) {
		this.cutsAfterWriteHit = markers.toArray(byte[][]::new);
	}

	/**
	 * Arms a cut after the next write on a link, or after the next aimed at.
	 * @param index the link
	 */
	void cutAfterNextWrite(int index) {
		byte[][] markers = this.cutsAfterWriteHit;
		if (markers != null) {
			linkAt(index).cutAfterNextWrite(markers);
		}
		else {
			linkAt(index).cutAfterNextWrite();
		}
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
