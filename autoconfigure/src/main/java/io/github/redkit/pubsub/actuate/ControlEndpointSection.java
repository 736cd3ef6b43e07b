package io.github.redkit.pubsub.actuate;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.github.redkit.actuate.EndpointSettings;
import io.github.redkit.actuate.KeyScan;
import io.github.redkit.actuate.RedkitEndpointSection;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.pubsub.ControlSnapshot;
import io.github.redkit.pubsub.ControlState;
import io.github.redkit.pubsub.internal.RedisControlState;
import org.jspecify.annotations.Nullable;

import org.springframework.core.Ordered;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The {@code control} section of the {@code redkit} endpoint: durable control state, the
 * groups found with a bounded {@code SCAN} on their version counters
 * ({@code <prefix>:pubsub:{control:<group>}:version}, see
 * {@link RedisControlState#versionKeyPrefix}), each with its current values and the
 * instances that acknowledged a version, read through {@link ControlState}.
 */
public final class ControlEndpointSection implements RedkitEndpointSection, Ordered {

	/** After idempotent steps. */
	public static final int ORDER = 600;

	private final ControlState controlState;

	private final RedisConnectionFactory connectionFactory;

	private final RedisKeyspace keyspace;

	private final EndpointSettings settings;

	/**
	 * Creates the section.
	 * @param controlState reads a group's state and acknowledgements
	 * @param connectionFactory the connection factory
	 * @param keyspace the keyspace
	 * @param settings the endpoint's settings
	 */
	public ControlEndpointSection(ControlState controlState, RedisConnectionFactory connectionFactory,
			RedisKeyspace keyspace, EndpointSettings settings) {
		this.controlState = controlState;
		this.connectionFactory = connectionFactory;
		this.keyspace = keyspace;
		this.settings = settings;
	}

	@Override
	public String name() {
		return "control";
	}

	@Override
	public String capability() {
		return "pubsub";
	}

	@Override
	public int getOrder() {
		return ORDER;
	}

	/**
	 * One page of control groups, bounded like the lock listing.
	 * @param cursor where the previous page stopped ({@code null} or {@code 0} to start)
	 * @param count how many groups at most
	 * @return the groups and the cursor of the next page ({@code 0} when done)
	 */
	@Override
	public Map<String, Object> read(@Nullable String cursor, @Nullable Integer count) {
		int wanted = this.settings.pageSize(count, 50);
		String prefix = RedisControlState.versionKeyPrefix(this.keyspace);
		String suffix = RedisControlState.VERSION_KEY_SUFFIX;
		KeyScan.Page found;
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			// a hashed (over-long) group name cannot be read back by its name
			found = KeyScan.scan(connection, cursor, KeyScan.escapeGlob(prefix) + "*" + KeyScan.escapeGlob(suffix),
					this.settings, wanted, (key) -> {
						String group = group(key, prefix, suffix);
						return !group.startsWith("#") && !group.contains("}");
					});
		}
		List<String> groups = new ArrayList<>();
		found.keys().forEach((key) -> groups.add(KeyScan.unescape(group(key, prefix, suffix))));
		Map<String, Object> page = new LinkedHashMap<>();
		page.put("groups", groups.stream().sorted().map(this::describe).toList());
		page.put("cursor", found.cursor());
		page.put("complete", found.complete());
		return page;
	}

	private static String group(String key, String prefix, String suffix) {
		return key.substring(prefix.length(), key.length() - suffix.length());
	}

	private Map<String, Object> describe(String group) {
		ControlSnapshot snapshot = this.controlState.read(group);
		Map<String, Object> described = new LinkedHashMap<>();
		described.put("group", group);
		described.put("version", snapshot.version());
		described.put("values", new TreeMap<>(snapshot.values()));
		described.put("acknowledgements", new TreeMap<>(this.controlState.acknowledgements(group)));
		return described;
	}

}
