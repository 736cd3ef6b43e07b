package io.github.redkit.pubsub.internal;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.internal.RedkitThreads;
import io.github.redkit.pubsub.ControlSnapshot;
import io.github.redkit.pubsub.ControlState;
import io.github.redkit.pubsub.ControlStateListener;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.SubscriptionListener;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

/**
 * Keeps {@link ControlStateListener} beans in step with {@link ControlState}: listens on
 * the control channel of Spring Data Redis' listener container, re-reads a group when its
 * change is announced, and re-reads every group at start-up and whenever the channel is
 * subscribed again (Lettuce resubscribes after a reconnect and Redis confirms it), so a
 * process that missed an announcement converges. Bad messages are logged, counted and
 * dropped. After a listener applied a version it is acknowledged, and acknowledgements
 * are renewed periodically while the process lives.
 */
public class ControlStateSubscription implements MessageListener, SubscriptionListener, SmartLifecycle {

	private static final Log logger = LogFactory.getLog(ControlStateSubscription.class);

	private final RedisMessageListenerContainer container;

	private final RedisControlState state;

	private final Map<String, List<ControlStateListener>> listeners = new LinkedHashMap<>();

	private final Map<String, Long> delivered = new ConcurrentHashMap<>();

	private final JsonMapper mapper;

	private final RedkitMetrics metrics;

	private final String subscriberId;

	private final Duration ackRenewal;

	private final AtomicLong subscriptions = new AtomicLong();

	private final AtomicLong messages = new AtomicLong();

	private final AtomicLong badPayloads = new AtomicLong();

	private volatile boolean running;

	private volatile boolean subscribed;

	private @Nullable ScheduledExecutorService renewals;

	/**
	 * Creates the subscription.
	 * @param container the listener container (usually Spring Boot's)
	 * @param state the control state
	 * @param listeners the listener beans
	 * @param mapper the JSON mapper announcements are read with
	 * @param metrics where messages, bad payloads and resubscriptions are counted
	 * @param subscriberId the id acknowledgements are recorded under
	 * @param ackRenewal how often acknowledgements are renewed (shorter than their TTL)
	 */
	public ControlStateSubscription(RedisMessageListenerContainer container, RedisControlState state,
			List<ControlStateListener> listeners, JsonMapper mapper, RedkitMetrics metrics, String subscriberId,
			Duration ackRenewal) {
		this.container = container;
		this.state = state;
		listeners.forEach(
				(listener) -> this.listeners.computeIfAbsent(listener.group(), (g) -> new ArrayList<>()).add(listener));
		this.mapper = mapper;
		this.metrics = metrics;
		this.subscriberId = subscriberId;
		this.ackRenewal = ackRenewal;
		metrics.gauge(PubSubMeters.SUBSCRIBED, this, (subscription) -> subscription.isSubscribed() ? 1 : 0);
	}

	@Override
	public void start() {
		this.running = true;
		this.container.addMessageListener(this, new ChannelTopic(this.state.channel()));
		ScheduledExecutorService renewals = Executors
			.newSingleThreadScheduledExecutor(RedkitThreads.factory("redkit-control-state-acks"));
		long period = Math.max(1, this.ackRenewal.toMillis());
		renewals.scheduleWithFixedDelay(this::renewAcknowledgements, period, period, TimeUnit.MILLISECONDS);
		this.renewals = renewals;
		// the channel may already be subscribed for another listener: no confirmation
		// then
		refreshAll(true);
	}

	@Override
	public void stop() {
		this.running = false;
		this.subscribed = false;
		this.container.removeMessageListener(this);
		ScheduledExecutorService renewals = this.renewals;
		if (renewals != null) {
			renewals.shutdownNow();
		}
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		// the container's phase: a listener may be added before or after the container
		// starts, and the start-up read below does not need the subscription
		return this.container.getPhase();
	}

	@Override
	public void onChannelSubscribed(byte[] channel, long count) {
		this.subscribed = true;
		if (this.subscriptions.incrementAndGet() > 1) {
			this.metrics.increment(PubSubMeters.RESUBSCRIBES);
			logger.info("Control channel '" + this.state.channel() + "' subscribed again; re-reading the state");
		}
		refreshAll(true);
	}

	@Override
	public void onChannelUnsubscribed(byte[] channel, long count) {
		this.subscribed = false;
	}

	@Override
	public void onMessage(Message message, byte @Nullable [] pattern) {
		this.messages.incrementAndGet();
		this.metrics.increment(PubSubMeters.MESSAGES);
		String body = new String(message.getBody(), StandardCharsets.UTF_8);
		String group;
		try {
			JsonNode node = this.mapper.readTree(body);
			group = node.path("group").asString(null);
			if (group == null || !node.path("version").isNumber()) {
				throw new IllegalArgumentException("expected {\"group\": ..., \"version\": ...}");
			}
		}
		catch (RuntimeException ex) {
			this.badPayloads.incrementAndGet();
			this.metrics.increment(PubSubMeters.BAD_PAYLOADS);
			logger.warn("Dropped a bad message on control channel '" + this.state.channel() + "': " + abbreviate(body)
					+ " (" + ex.getMessage() + ")");
			return;
		}
		if (this.listeners.containsKey(group)) {
			refresh(group, false);
		}
	}

	private void refreshAll(boolean force) {
		this.listeners.keySet().forEach((group) -> refresh(group, force));
	}

	private void refresh(String group, boolean force) {
		if (!this.running) {
			return;
		}
		List<ControlStateListener> listeners = this.listeners.get(group);
		if (listeners == null) {
			return;
		}
		synchronized (listeners) {
			try {
				ControlSnapshot snapshot = this.state.read(group);
				long last = this.delivered.getOrDefault(group, -1L);
				if (snapshot.version() < last || (!force && snapshot.version() == last)) {
					return;
				}
				for (ControlStateListener listener : listeners) {
					listener.onControlState(snapshot);
				}
				this.delivered.put(group, snapshot.version());
				this.state.acknowledge(group, this.subscriberId, snapshot.version());
			}
			catch (RuntimeException ex) {
				logger.warn("Could not apply control state of group '" + group + "'; will retry on the next change or"
						+ " reconnect: " + ex.getMessage(), ex);
			}
		}
	}

	private void renewAcknowledgements() {
		this.delivered.forEach((group, version) -> {
			try {
				this.state.acknowledge(group, this.subscriberId, version);
			}
			catch (RuntimeException ex) {
				logger.debug("Could not renew the acknowledgement of group '" + group + "'", ex);
			}
		});
	}

	private static String abbreviate(String body) {
		return (body.length() <= 200) ? body : body.substring(0, 200) + "...";
	}

	/**
	 * Whether the control channel is subscribed (Redis confirmed it and the container
	 * runs).
	 * @return {@code true} when subscribed
	 */
	public boolean isSubscribed() {
		return this.running && this.subscribed && this.container.isRunning();
	}

	/**
	 * How many times Redis confirmed the subscription (1 + resubscriptions).
	 * @return the count
	 */
	public long subscriptions() {
		return this.subscriptions.get();
	}

	/**
	 * Messages received on the control channel.
	 * @return the count
	 */
	public long messages() {
		return this.messages.get();
	}

	/**
	 * Messages dropped because they could not be read.
	 * @return the count
	 */
	public long badPayloads() {
		return this.badPayloads.get();
	}

	/**
	 * The id acknowledgements are recorded under.
	 * @return the subscriber id
	 */
	public String subscriberId() {
		return this.subscriberId;
	}

	/**
	 * The last version delivered to the listeners of each group.
	 * @return versions by group
	 */
	public Map<String, Long> deliveredVersions() {
		return Map.copyOf(this.delivered);
	}

}
