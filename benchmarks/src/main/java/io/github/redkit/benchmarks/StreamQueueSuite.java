package io.github.redkit.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import io.github.redkit.benchmarks.QueueSuite.Job;
import io.github.redkit.benchmarks.QueueSuite.RedkitAckAndReceive;
import io.github.redkit.benchmarks.QueueSuite.RedkitBatch;
import io.github.redkit.benchmarks.QueueSuite.RedkitReceiveAck;
import io.github.redkit.benchmarks.QueueSuite.SpringContender;
import io.github.redkit.testsupport.RedisServer;
import io.github.redkit.testsupport.RespClient;
import org.redisson.api.RStream;
import org.redisson.api.RedissonClient;
import org.redisson.api.stream.StreamMessageId;
import org.redisson.api.stream.StreamReadGroupArgs;
import org.redisson.client.codec.StringCodec;

import org.springframework.data.redis.connection.stream.Consumer;
import org.springframework.data.redis.connection.stream.MapRecord;
import org.springframework.data.redis.connection.stream.ReadOffset;
import org.springframework.data.redis.connection.stream.RecordId;
import org.springframework.data.redis.connection.stream.StreamOffset;
import org.springframework.data.redis.connection.stream.StreamReadOptions;
import org.springframework.data.redis.core.RedisCallback;

/**
 * Queues on a stream (issue 46): a take + ack per message, by Redkit's stream store
 * beside its list store, the raw commands ({@code XREADGROUP}, then {@code XACK} and
 * {@code XDEL}, or {@code XACK} alone) and Redisson's {@code RStream} ({@code readGroup}
 * + {@code ack}), one message or a batch per call. The reference is the raw take,
 * acknowledgement and deletion, the work the stream store does.
 */
final class StreamQueueSuite {

	/** The raw and Redisson contenders' consumer group (Redkit's is its own). */
	static final String GROUP = "bench";

	// smaller in the build's tests, which only check that every contender still runs
	private static final int FILL = Integer.getInteger("redkit.benchmarks.queue-fill", 200_000);

	private static final int FILL_CHUNK = 10_000;

	// one script call fills the stream, fields as the raw contenders read them
	private static final String FILL_SCRIPT = """
			pcall(redis.call, 'XGROUP', 'CREATE', KEYS[1], ARGV[2], '0', 'MKSTREAM')
			for i = 1, tonumber(ARGV[1]) do
			  redis.call('XADD', KEYS[1], '*', 'e', '{"to":"user' .. (i % 1000) .. '@example.com","number":' .. i .. '}')
			end
			return redis.call('XLEN', KEYS[1])""";

	private StreamQueueSuite() {
	}

	static Suite takeAck() {
		return new Suite("queue take + ack, stream", List.of((redis) -> new RawStreamTake(redis, 1, Removal.XDEL),
				(redis) -> new RawStreamTake(redis, 1, Removal.NONE),
				(redis) -> new RedkitAckAndReceive(redis, "stream"), (redis) -> new RedkitReceiveAck(redis, "stream"),
				(redis) -> new RedkitAckAndReceive(redis, "list"), (redis) -> new RedissonStreamTake(redis, 1)));
	}

	static Suite batches() {
		return new Suite("queue take + ack, stream, batch of 50, per message",
				List.of((redis) -> new RawStreamTake(redis, 50, Removal.XDEL),
						(redis) -> new RawStreamTake(redis, 50, Removal.NONE),
						(redis) -> new RedkitBatch(redis, 50, "stream"), (redis) -> new RedkitBatch(redis, 50, "list"),
						(redis) -> new RedissonStreamTake(redis, 50)));
	}

	/**
	 * {@code XACKDEL} (Redis 8.2+) in place of {@code XACK} + {@code XDEL}, beside the
	 * stream store, which uses it there too; not in {@code all}.
	 */
	static Suite ackDelete() {
		return new Suite("queue take + ack, stream, XACKDEL",
				List.of((redis) -> new RawStreamTake(redis, 1, Removal.XACKDEL),
						(redis) -> new RawStreamTake(redis, 1, Removal.XDEL),
						(redis) -> new RedkitAckAndReceive(redis, "stream"),
						(redis) -> new RawStreamTake(redis, 50, Removal.XACKDEL),
						(redis) -> new RawStreamTake(redis, 50, Removal.XDEL),
						(redis) -> new RedkitBatch(redis, 50, "stream")));
	}

	/**
	 * What a raw consumer does with an entry it handled.
	 */
	enum Removal {

		/** {@code XACK}: the entry stays in the stream (trimming is the sender's). */
		NONE(" + XACK"),

		/** {@code XACK} then {@code XDEL}, as the stream store does before Redis 8.2. */
		XDEL(" + XACK + XDEL"),

		/** One {@code XACKDEL ... IDS}, Redis 8.2+. */
		XACKDEL(" + XACKDEL");

		private final String label;

		Removal(String label) {
			this.label = label;
		}

	}

	/**
	 * The stream of the raw and Redisson contenders, filled by one script and filled
	 * again once a take comes back short; a generation tells the threads that found it
	 * dry together that another one filled it already (the stream's length cannot: the
	 * contenders that only acknowledge keep every entry).
	 */
	static final class StreamFill {

		private final RedisServer redis;

		private final AtomicLong generation = new AtomicLong();

		StreamFill(RedisServer redis) {
			this.redis = redis;
			fill();
		}

		long generation() {
			return this.generation.get();
		}

		synchronized void refill(long seen) {
			if (this.generation.get() == seen) {
				fill();
				this.generation.incrementAndGet();
			}
		}

		private void fill() {
			// in chunks, as the list contenders fill theirs: one script of FILL entries
			// outlasted the client's read timeout on a loaded machine
			try (RespClient client = this.redis.client(this.redis.port())) {
				for (int from = 0; from < FILL; from += FILL_CHUNK) {
					client.call("EVAL", FILL_SCRIPT, "1", QueueSuite.QUEUE,
							Integer.toString(Math.min(FILL_CHUNK, FILL - from)), GROUP);
				}
			}
		}

	}

	/**
	 * {@code XREADGROUP COUNT n}, JSON read, then the acknowledgement of what was read,
	 * each a round trip, through Spring Data Redis.
	 */
	static final class RawStreamTake extends SpringContender {

		private final int count;

		private final Removal removal;

		private final StreamFill fill;

		RawStreamTake(RedisServer redis, int count, Removal removal) {
			super(redis);
			this.count = count;
			this.removal = removal;
			if (removal == Removal.XACKDEL) {
				refuseWithoutAckDelete(redis);
			}
			this.fill = new StreamFill(redis);
		}

		@Override
		public String name() {
			return "Spring Data Redis XREADGROUP" + ((this.count > 1) ? " COUNT " + this.count : "")
					+ this.removal.label;
		}

		@Override
		public int unitsPerOperation() {
			return this.count;
		}

		@Override
		public void operate(int thread, long iteration) {
			Consumer consumer = Consumer.from(GROUP, "c" + thread);
			long generation = this.fill.generation();
			List<RecordId> ids = new ArrayList<>(this.count);
			read(consumer, this.count, ids);
			if (ids.size() < this.count) {
				this.fill.refill(generation);
				read(consumer, this.count - ids.size(), ids);
			}
			RecordId[] handled = ids.toArray(RecordId[]::new);
			this.template.opsForStream().acknowledge(QueueSuite.QUEUE, GROUP, handled);
			if (this.removal == Removal.XDEL) {
				this.template.opsForStream().delete(QueueSuite.QUEUE, handled);
			}
			else if (this.removal == Removal.XACKDEL) {
				ackDelete(ids);
			}
		}

		private void read(Consumer consumer, int count, List<RecordId> ids) {
			List<MapRecord<String, Object, Object>> records = this.template.opsForStream()
				.read(consumer, StreamReadOptions.empty().count(count),
						StreamOffset.create(QueueSuite.QUEUE, ReadOffset.lastConsumed()));
			if (records != null) {
				for (MapRecord<String, Object, Object> record : records) {
					QueueSuite.JSON.readValue(String.valueOf(record.getValue().get("e")), Job.class);
					ids.add(record.getId());
				}
			}
		}

		private void ackDelete(List<RecordId> ids) {
			byte[][] args = new byte[4 + ids.size()][];
			args[0] = QueueSuite.QUEUE.getBytes();
			args[1] = GROUP.getBytes();
			args[2] = "IDS".getBytes();
			args[3] = Integer.toString(ids.size()).getBytes();
			for (int i = 0; i < ids.size(); i++) {
				args[4 + i] = ids.get(i).getValue().getBytes();
			}
			this.template.execute((RedisCallback<Object>) (connection) -> connection.execute("XACKDEL", args));
		}

		private static void refuseWithoutAckDelete(RedisServer redis) {
			try (RespClient client = redis.client(redis.port())) {
				Object info = client.call("COMMAND", "INFO", "XACKDEL");
				if (!(info instanceof List<?> list) || list.isEmpty() || list.get(0) == null) {
					throw new IllegalArgumentException("The server (" + redis.version()
							+ ") has no XACKDEL (Redis 8.2+): run this suite with --server= a server that has it");
				}
			}
		}

	}

	/**
	 * Redisson's {@code RStream}: {@code readGroup} of never delivered entries, then
	 * {@code ack}; Redisson leaves the entries in the stream (its reliable queue is
	 * another, paid, product).
	 */
	static final class RedissonStreamTake implements Contender {

		private final RedissonClient redisson;

		private final RStream<String, String> stream;

		private final int count;

		private final StreamFill fill;

		RedissonStreamTake(RedisServer redis, int count) {
			this.redisson = Clients.redisson(redis);
			this.stream = this.redisson.getStream(QueueSuite.QUEUE, StringCodec.INSTANCE);
			this.count = count;
			this.fill = new StreamFill(redis);
		}

		@Override
		public String name() {
			return "Redisson RStream.readGroup" + ((this.count > 1) ? " count " + this.count : "") + " + ack";
		}

		@Override
		public int unitsPerOperation() {
			return this.count;
		}

		@Override
		public void operate(int thread, long iteration) {
			String consumer = "c" + thread;
			long generation = this.fill.generation();
			List<StreamMessageId> ids = new ArrayList<>(this.count);
			read(consumer, this.count, ids);
			if (ids.size() < this.count) {
				this.fill.refill(generation);
				read(consumer, this.count - ids.size(), ids);
			}
			this.stream.ack(GROUP, ids.toArray(StreamMessageId[]::new));
		}

		private void read(String consumer, int count, List<StreamMessageId> ids) {
			Map<StreamMessageId, Map<String, String>> read = this.stream.readGroup(GROUP, consumer,
					StreamReadGroupArgs.neverDelivered().count(count));
			read.forEach((id, fields) -> {
				QueueSuite.JSON.readValue(fields.get("e"), Job.class);
				ids.add(id);
			});
		}

		@Override
		public void close() {
			this.redisson.shutdown();
		}

	}

}
