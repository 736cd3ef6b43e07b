package io.github.redkit.queue.internal;

import java.nio.charset.StandardCharsets;

import io.github.redkit.queue.ExistingStream;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.DataType;
import org.springframework.data.redis.connection.stream.ReadOffset;
import org.springframework.data.redis.connection.stream.StreamInfo.XInfoGroup;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The checks of a queue that reads a stream another application writes: at start-up, what
 * cannot be read fails start-up naming the property, rather than every take later; what
 * would write to that stream is refused.
 */
final class ExistingStreams {

	private static final Log logger = LogFactory.getLog(ExistingStreams.class);

	private ExistingStreams() {
	}

	static void prepare(StringRedisTemplate redis, String queue, ExistingStream existing) {
		String prefix = "redkit.queue.queues." + queue + ".";
		DataType type = redis.type(existing.key());
		if (type != DataType.NONE && type != DataType.STREAM) {
			throw new IllegalStateException(prefix + "stream-key: '" + existing.key() + "' holds a "
					+ ((type != null) ? type.code() : "value") + ", not a stream");
		}
		if (type == DataType.STREAM && hasGroup(redis, existing)) {
			logger.info("Queue '" + queue + "' reads stream '" + existing.key() + "' with its existing group '"
					+ existing.group() + "', from where the group stands (" + prefix + "start-from applies only"
					+ " to a group Redkit creates)");
			return;
		}
		if (!existing.createGroup()) {
			throw new IllegalStateException(prefix + "group: stream '" + existing.key() + "' "
					+ ((type == DataType.NONE) ? "does not exist" : "has no group '" + existing.group() + "'")
					+ "; create it (XGROUP CREATE ... MKSTREAM), or set " + prefix
					+ "create-group=true to have Redkit create it from " + prefix + "start-from");
		}
		try {
			redis.execute((RedisCallback<String>) (connection) -> connection.streamCommands()
				.xGroupCreate(existing.key().getBytes(StandardCharsets.UTF_8), existing.group(),
						ReadOffset.from(existing.startFrom()), true));
			logger.info("Queue '" + queue + "' created group '" + existing.group() + "' of stream '" + existing.key()
					+ "' from " + existing.startFrom());
		}
		catch (DataAccessException ex) {
			// another instance created it meanwhile: kept, as any existing group
			if (!String.valueOf(ex.getMessage()).contains("BUSYGROUP")) {
				throw new IllegalStateException(prefix + "start-from: cannot create group '" + existing.group()
						+ "' of stream '" + existing.key() + "' from " + existing.startFrom(), ex);
			}
		}
	}

	/**
	 * Refuses what would write to a stream another application writes: its layout is that
	 * application's, and other groups may read it.
	 * @param queue the queue name
	 * @param existing the stream the queue reads, {@code null} for a queue of Redkit's
	 * own
	 * @param what what Redkit would do, for the refusal
	 */
	static void refuseWrites(String queue, @Nullable ExistingStream existing, String what) {
		if (existing != null) {
			throw new IllegalArgumentException("Queue '" + queue + "' reads the stream '" + existing.key()
					+ "' another application writes (redkit.queue.queues." + queue + ".stream-key): Redkit never "
					+ what + "; add entries to it as that application does (XADD)");
		}
	}

	private static boolean hasGroup(StringRedisTemplate redis, ExistingStream existing) {
		for (XInfoGroup group : redis.opsForStream().groups(existing.key())) {
			if (existing.group().equals(group.groupName())) {
				return true;
			}
		}
		return false;
	}

}
