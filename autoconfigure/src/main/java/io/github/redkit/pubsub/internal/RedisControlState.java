package io.github.redkit.pubsub.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.internal.LuaScript;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.pubsub.ControlSnapshot;
import io.github.redkit.pubsub.ControlState;

import org.springframework.util.Assert;

/**
 * {@link ControlState} on Redis: per group a hash of values and a version counter under
 * one hash tag ({@code <prefix>:pubsub:{control:<group>}:values|version}), changed and
 * announced by one script; acknowledgements in a sorted set scored by expiry plus a hash
 * of versions under the same tag. Every key has a TTL, renewed by each change.
 */
public class RedisControlState implements ControlState {

	/** Where a group's version counter ends, after the group. */
	public static final String VERSION_KEY_SUFFIX = "}:version";

	private static final String CAPABILITY = "pubsub";

	private static final String CONTROL = "control";

	private static final LuaScript<Long> SET = LuaScript.load("pubsub_control_set", Long.class);

	private static final LuaScript<List> READ = LuaScript.load("pubsub_control_read", List.class);

	private static final LuaScript<Long> ACK = LuaScript.load("pubsub_control_ack", Long.class);

	private static final LuaScript<List> ACKS = LuaScript.load("pubsub_control_acks", List.class);

	private final RedisScriptRunner runner;

	private final RedisKeyspace keyspace;

	private final String channel;

	private final Duration stateTtl;

	private final Duration ackTtl;

	/**
	 * Creates the control state.
	 * @param runner the script runner
	 * @param keyspace the keyspace
	 * @param channel the control channel the changes are announced on
	 * @param stateTtl how long a group's state lives after its last change
	 * @param ackTtl how long an acknowledgement lives unless renewed
	 */
	public RedisControlState(RedisScriptRunner runner, RedisKeyspace keyspace, String channel, Duration stateTtl,
			Duration ackTtl) {
		this.runner = runner;
		this.keyspace = keyspace;
		this.channel = channel;
		this.stateTtl = stateTtl;
		this.ackTtl = ackTtl;
	}

	/**
	 * The channel changes are announced on.
	 * @return the channel
	 */
	public String channel() {
		return this.channel;
	}

	@Override
	public long set(String group, Map<String, String> values) {
		Assert.notEmpty(values, "values must not be empty");
		List<String> args = new ArrayList<>(List.of(this.channel, Long.toString(this.stateTtl.toMillis()), group));
		values.forEach((field, value) -> {
			Assert.hasText(field, "a field must not be empty");
			args.add(field);
			args.add((value != null) ? value : "");
		});
		return this.runner.execute(SET, keys(group, "values", "version"), args.toArray(new String[0]));
	}

	@Override
	public ControlSnapshot read(String group) {
		List<?> reply = this.runner.execute(READ, keys(group, "values", "version"));
		Map<String, String> values = new LinkedHashMap<>();
		for (int i = 1; i + 1 < reply.size(); i += 2) {
			values.put(reply.get(i).toString(), reply.get(i + 1).toString());
		}
		return new ControlSnapshot(group, ((Number) reply.get(0)).longValue(), values);
	}

	@Override
	public void acknowledge(String group, String subscriberId, long version) {
		this.runner.execute(ACK, keys(group, "acks", "acked"), subscriberId, Long.toString(version),
				Long.toString(this.ackTtl.toMillis()));
	}

	@Override
	public Map<String, Long> acknowledgements(String group) {
		List<?> reply = this.runner.execute(ACKS, keys(group, "acks", "acked"));
		Map<String, Long> acks = new LinkedHashMap<>();
		for (int i = 0; i + 1 < reply.size(); i += 2) {
			acks.put(reply.get(i).toString(), Long.parseLong(reply.get(i + 1).toString()));
		}
		return acks;
	}

	/**
	 * Where the version counters of every control group start, for tools that list the
	 * groups: a group's counter is this prefix, the group (escaped), then
	 * {@link #VERSION_KEY_SUFFIX}, as {@link #set} writes it
	 * ({@code <prefix>:pubsub:{control:<group>}:version}).
	 * @param keyspace the keyspace
	 * @return the prefix
	 */
	public static String versionKeyPrefix(RedisKeyspace keyspace) {
		return keyspace.key(CAPABILITY).build() + ":{" + CONTROL + ":";
	}

	private List<String> keys(String group, String first, String second) {
		RedisKeyspace.Key tagged = this.keyspace.key(CAPABILITY).tag(CONTROL, group);
		return List.of(tagged.part(first).build(), tagged.part(second).build());
	}

}
