package io.github.redkit.actuate;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.pubsub.ControlSnapshot;
import io.github.redkit.pubsub.ControlState;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Durable control state: the groups found with a bounded {@code SCAN} on their version
 * counters ({@code <prefix>:pubsub:{control:<group>}:version}), each with its current
 * values and the instances that acknowledged a version, read through
 * {@link ControlState}.
 */
public class ControlViews {

	private static final String MARK = "{control:";

	private static final String SUFFIX = "}:version";

	private final ControlState controlState;

	private final RedisConnectionFactory connectionFactory;

	private final RedisKeyspace keyspace;

	private final EndpointSettings settings;

	/**
	 * Creates the views.
	 * @param controlState reads a group's state and acknowledgements
	 * @param connectionFactory the connection factory
	 * @param keyspace the keyspace
	 * @param settings the endpoint's settings
	 */
	public ControlViews(ControlState controlState, RedisConnectionFactory connectionFactory, RedisKeyspace keyspace,
			EndpointSettings settings) {
		this.controlState = controlState;
		this.connectionFactory = connectionFactory;
		this.keyspace = keyspace;
		this.settings = settings;
	}

	/**
	 * One page of control groups, bounded like the lock listing.
	 * @param cursor where the previous page stopped ({@code null} or {@code 0} to start)
	 * @param count how many groups at most
	 * @return the groups and the cursor of the next page ({@code 0} when done)
	 */
	public Map<String, Object> page(@Nullable String cursor, @Nullable Integer count) {
		int wanted = this.settings.pageSize(count, 50);
		String prefix = this.keyspace.key("pubsub").build() + ":";
		KeyScan.Page found;
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			// a hashed (over-long) group name cannot be read back by its name
			found = KeyScan.scan(connection, cursor, KeyScan.escapeGlob(prefix + MARK) + "*" + SUFFIX, this.settings,
					wanted, (key) -> {
						String group = group(key, prefix);
						return !group.startsWith("#") && !group.contains("}");
					});
		}
		List<String> groups = new ArrayList<>();
		found.keys().forEach((key) -> groups.add(KeyScan.unescape(group(key, prefix))));
		Map<String, Object> page = new LinkedHashMap<>();
		page.put("groups", groups.stream().sorted().map(this::describe).toList());
		page.put("cursor", found.cursor());
		page.put("complete", found.complete());
		return page;
	}

	private static String group(String key, String prefix) {
		return key.substring(prefix.length() + MARK.length(), key.length() - SUFFIX.length());
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
