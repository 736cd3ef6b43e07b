package io.github.redkit.autoconfigure.region;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Properties of several regions ({@code RegionalCounters} and their replication).
 */
@ConfigurationProperties("redkit.regions")
public class RegionProperties {

	/**
	 * Name of this instance's region; setting it turns multi-region replication on. Must
	 * be unique among the regions.
	 */
	private @Nullable String local;

	/**
	 * The other regions' Redis, by region name (the local one is spring.data.redis.*).
	 */
	private Map<String, Peer> peers = new LinkedHashMap<>();

	/**
	 * What is replicated between the regions: 'counters' (RegionalCounters), 'budgets'
	 * (RegionalBudgets) and 'rate-limits' (the limits marked global).
	 */
	private List<String> replicate = new ArrayList<>(List.of("counters", "budgets", "rate-limits"));

	private final Budgets budgets = new Budgets();

	/**
	 * Local timeout of every regional call and of every replication round trip.
	 */
	private Duration timeout = Duration.ofSeconds(2);

	private final Outbox outbox = new Outbox();

	private final Replication replication = new Replication();

	private final Health health = new Health();

	public @Nullable String getLocal() {
		return this.local;
	}

	public void setLocal(@Nullable String local) {
		this.local = local;
	}

	public Map<String, Peer> getPeers() {
		return this.peers;
	}

	public void setPeers(Map<String, Peer> peers) {
		this.peers = peers;
	}

	public List<String> getReplicate() {
		return this.replicate;
	}

	public void setReplicate(List<String> replicate) {
		this.replicate = replicate;
	}

	public Budgets getBudgets() {
		return this.budgets;
	}

	public Health getHealth() {
		return this.health;
	}

	public Duration getTimeout() {
		return this.timeout;
	}

	public void setTimeout(Duration timeout) {
		this.timeout = timeout;
	}

	public Outbox getOutbox() {
		return this.outbox;
	}

	public Replication getReplication() {
		return this.replication;
	}

	/**
	 * One peer region's Redis.
	 */
	public static class Peer {

		/**
		 * Redis URL of a standalone peer (redis:// or rediss://), like
		 * spring.data.redis.url. Set this, cluster.nodes or sentinel.*, one of them.
		 */
		private @Nullable String url;

		/**
		 * Password of the peer's Redis; overrides one in the URL.
		 */
		private @Nullable String password;

		/**
		 * Whether to connect with TLS; a rediss:// URL turns it on as well.
		 */
		private boolean ssl;

		private final Cluster cluster = new Cluster();

		private final Sentinel sentinel = new Sentinel();

		public @Nullable String getUrl() {
			return this.url;
		}

		public void setUrl(@Nullable String url) {
			this.url = url;
		}

		public @Nullable String getPassword() {
			return this.password;
		}

		public void setPassword(@Nullable String password) {
			this.password = password;
		}

		public boolean isSsl() {
			return this.ssl;
		}

		public void setSsl(boolean ssl) {
			this.ssl = ssl;
		}

		public Cluster getCluster() {
			return this.cluster;
		}

		public Sentinel getSentinel() {
			return this.sentinel;
		}

	}

	/**
	 * A peer region whose Redis is a Cluster.
	 */
	public static class Cluster {

		/**
		 * Some of the peer's cluster nodes, host:port, from which the others are found.
		 */
		private List<String> nodes = new ArrayList<>();

		public List<String> getNodes() {
			return this.nodes;
		}

		public void setNodes(List<String> nodes) {
			this.nodes = nodes;
		}

	}

	/**
	 * A peer region whose Redis is watched by Sentinel.
	 */
	public static class Sentinel {

		/**
		 * Name of the peer's master, as its Sentinels know it.
		 */
		private @Nullable String master;

		/**
		 * The peer's Sentinels, host:port.
		 */
		private List<String> nodes = new ArrayList<>();

		public @Nullable String getMaster() {
			return this.master;
		}

		public void setMaster(@Nullable String master) {
			this.master = master;
		}

		public List<String> getNodes() {
			return this.nodes;
		}

		public void setNodes(List<String> nodes) {
			this.nodes = nodes;
		}

	}

	/**
	 * Budgets shared by the regions.
	 */
	public static class Budgets {

		/**
		 * How long a region remembers an operation id of a spend or a refund, so that a
		 * retry is answered as the first attempt was.
		 */
		private Duration operationTtl = Duration.ofHours(24);

		public Duration getOperationTtl() {
			return this.operationTtl;
		}

		public void setOperationTtl(Duration operationTtl) {
			this.operationTtl = operationTtl;
		}

	}

	/**
	 * The local outbox of changes waiting to be shipped.
	 */
	public static class Outbox {

		/**
		 * Approximate bound of the outbox stream (MAXLEN ~). A peer away long enough for
		 * its entries to be trimmed must be re-seeded (flagged by a metric and a log).
		 */
		private long maxLength = 1_000_000;

		/**
		 * Shards the regional state is spread over (1 to 1024), each with its own hash
		 * tag and outbox, so that on a Redis Cluster it spans several slots. Every region
		 * must use the same number; max-length bounds each shard's outbox.
		 */
		private int shards = 1;

		public int getShards() {
			return this.shards;
		}

		public void setShards(int shards) {
			this.shards = shards;
		}

		public long getMaxLength() {
			return this.maxLength;
		}

		public void setMaxLength(long maxLength) {
			this.maxLength = maxLength;
		}

	}

	/**
	 * The replicators, one per peer.
	 */
	public static class Replication {

		/**
		 * Most outbox entries shipped to a peer in one round trip.
		 */
		private int batchSize = 500;

		/**
		 * Pause of a replicator after a round that found less than a full batch.
		 */
		private Duration interval = Duration.ofMillis(100);

		public int getBatchSize() {
			return this.batchSize;
		}

		public void setBatchSize(int batchSize) {
			this.batchSize = batchSize;
		}

		public Duration getInterval() {
			return this.interval;
		}

		public void setInterval(Duration interval) {
			this.interval = interval;
		}

	}

	/**
	 * The regions' health indicator.
	 */
	public static class Health {

		/**
		 * Longest wait for this region's Redis to answer the health check's PING; shorter
		 * than the client's command timeout, so that a frozen Redis is reported DOWN
		 * quickly.
		 */
		private Duration timeout = Duration.ofSeconds(1);

		public Duration getTimeout() {
			return this.timeout;
		}

		public void setTimeout(Duration timeout) {
			this.timeout = timeout;
		}

	}

}
