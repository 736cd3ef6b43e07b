package io.github.redkit.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

import io.github.redkit.queue.QueueListenerContainer;
import io.github.redkit.queue.QueueMessage;
import io.github.redkit.queue.QueueMessageHandler;
import io.github.redkit.queue.QueueTemplate;
import io.github.redkit.queue.internal.QueueListenerContainerFactory;
import io.github.redkit.testsupport.RedisServer;
import org.jspecify.annotations.Nullable;
import org.redisson.api.RBlockingQueue;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Queues: enqueue (raw {@code RPUSH} of a JSON string, Redkit {@code send}, Redisson
 * {@code offer}) and dequeue (raw {@code LPOP}, Redkit reliable {@code receive} +
 * {@code ack}, Redisson {@code poll}, which has no acknowledgement). Dequeue contenders
 * pre-fill their queue and top it up when it runs dry. The batch suite counts messages,
 * not calls: raw {@code LPOP} of one and of N, Redkit's batch take (N acknowledged and N
 * taken per script call) and a listener container with a prefetch.
 */
final class QueueSuite {

	static final String QUEUE = "bench-queue";

	static final JsonMapper JSON = JsonMapper.builder().build();

	// smaller in the build's tests, which only check that every contender still runs
	private static final int FILL = Integer.getInteger("redkit.benchmarks.queue-fill", 200_000);

	private QueueSuite() {
	}

	static Suite enqueue() {
		return new Suite("queue enqueue", List.of(RawPush::new, RedkitSend::new, RedissonOffer::new));
	}

	static Suite dequeue() {
		return new Suite("queue dequeue (+ack)",
				List.of(RawPop::new, RedkitReceiveAck::new, RedkitAckAndReceive::new, RedissonPoll::new));
	}

	static Suite batches() {
		return new Suite("queue dequeue (+ack), per message",
				List.of(RawPop::new, (redis) -> new RawPopCount(redis, 10), (redis) -> new RawPopCount(redis, 50),
						RedkitAckAndReceive::new, (redis) -> new RedkitBatch(redis, 10),
						(redis) -> new RedkitBatch(redis, 50), (redis) -> new RedkitListener(redis, 1),
						(redis) -> new RedkitListener(redis, 10), (redis) -> new RedkitListener(redis, 50)));
	}

	/**
	 * The payload every contender moves.
	 *
	 * @param to a recipient
	 * @param number a sequence number
	 */
	record Job(String to, long number) {

		static Job of(int thread, long iteration) {
			return new Job("user" + Keys.index(thread, iteration) + "@example.com", iteration);
		}

	}

	static synchronized void refillRaw(StringRedisTemplate template) {
		if (template.opsForList().size(QUEUE) < 1000) {
			List<String> jobs = new ArrayList<>(FILL);
			for (int i = 0; i < FILL; i++) {
				jobs.add(JSON.writeValueAsString(Job.of(0, i)));
			}
			for (int from = 0; from < FILL; from += 10_000) {
				template.opsForList().rightPushAll(QUEUE, jobs.subList(from, Math.min(from + 10_000, FILL)));
			}
		}
	}

	abstract static class SpringContender implements Contender {

		final ConfigurableApplicationContext context;

		final StringRedisTemplate template;

		final QueueTemplate queues;

		SpringContender(RedisServer redis) {
			this(redis, Map.of());
		}

		SpringContender(RedisServer redis, Map<String, Object> properties) {
			this.context = Clients.springContext(redis, properties);
			this.template = this.context.getBean(StringRedisTemplate.class);
			this.queues = this.context.getBean(QueueTemplate.class);
		}

		/**
		 * The queue's store, for the names of the contenders that run on either.
		 * @param store {@code list} or {@code stream}
		 * @return the properties that keep the benchmark's queue there
		 */
		static Map<String, Object> store(String store) {
			return Map.of("redkit.queue.queues." + QUEUE + ".store", store);
		}

		static String suffix(String store) {
			return store.equals("list") ? "" : " (" + store + " store)";
		}

		/**
		 * Tops the queue up through Redkit, for the contenders that dequeue with Redkit.
		 */
		synchronized void refillWithQueueTemplate() {
			if (this.queues.size(QUEUE) < 1000) {
				List<Job> jobs = new ArrayList<>(FILL);
				for (int i = 0; i < FILL; i++) {
					jobs.add(Job.of(0, i));
				}
				this.queues.sendAll(QUEUE, jobs);
			}
		}

		@Override
		public void close() {
			this.context.close();
		}

	}

	static final class RawPush extends SpringContender {

		RawPush(RedisServer redis) {
			super(redis);
		}

		@Override
		public String name() {
			return "Spring Data Redis RPUSH (JSON)";
		}

		@Override
		public void operate(int thread, long iteration) {
			this.template.opsForList().rightPush(QUEUE, JSON.writeValueAsString(Job.of(thread, iteration)));
		}

	}

	static final class RedkitSend extends SpringContender {

		RedkitSend(RedisServer redis) {
			super(redis);
		}

		@Override
		public String name() {
			return "Redkit QueueTemplate.send";
		}

		@Override
		public void operate(int thread, long iteration) {
			this.queues.send(QUEUE, Job.of(thread, iteration));
		}

	}

	static final class RedissonOffer implements Contender {

		private final RedissonClient redisson;

		private final RBlockingQueue<String> queue;

		RedissonOffer(RedisServer redis) {
			this.redisson = Clients.redisson(redis);
			this.queue = this.redisson.getBlockingQueue(QUEUE, StringCodec.INSTANCE);
		}

		@Override
		public String name() {
			return "Redisson RBlockingQueue.offer (JSON)";
		}

		@Override
		public void operate(int thread, long iteration) {
			this.queue.offer(JSON.writeValueAsString(Job.of(thread, iteration)));
		}

		@Override
		public void close() {
			this.redisson.shutdown();
		}

	}

	static final class RawPop extends SpringContender {

		RawPop(RedisServer redis) {
			super(redis);
			refill();
		}

		@Override
		public String name() {
			return "Spring Data Redis LPOP (JSON)";
		}

		@Override
		public void operate(int thread, long iteration) {
			String json = this.template.opsForList().leftPop(QUEUE);
			if (json == null) {
				refill();
				json = this.template.opsForList().leftPop(QUEUE);
			}
			JSON.readValue(json, Job.class);
		}

		private void refill() {
			refillRaw(this.template);
		}

	}

	static final class RedkitReceiveAck extends SpringContender {

		private final String store;

		RedkitReceiveAck(RedisServer redis) {
			this(redis, "list");
		}

		RedkitReceiveAck(RedisServer redis, String store) {
			super(redis, store(store));
			this.store = store;
			refillWithQueueTemplate();
		}

		@Override
		public String name() {
			return "Redkit QueueTemplate.receive + ack" + suffix(this.store);
		}

		@Override
		public void operate(int thread, long iteration) {
			QueueMessage<Job> message = this.queues.receive(QUEUE, Job.class).orElse(null);
			if (message == null) {
				refillWithQueueTemplate();
				message = this.queues.receive(QUEUE, Job.class).orElseThrow();
			}
			this.queues.ack(message);
		}

	}

	static final class RedkitAckAndReceive extends SpringContender {

		private final ThreadLocal<QueueMessage<Job>> previous = new ThreadLocal<>();

		private final String store;

		RedkitAckAndReceive(RedisServer redis) {
			this(redis, "list");
		}

		RedkitAckAndReceive(RedisServer redis, String store) {
			super(redis, store(store));
			this.store = store;
			refillWithQueueTemplate();
		}

		@Override
		public String name() {
			return "Redkit QueueTemplate.ackAndReceive" + suffix(this.store);
		}

		@Override
		public void operate(int thread, long iteration) {
			QueueMessage<Job> done = this.previous.get();
			QueueMessage<Job> message = ((done != null) ? this.queues.ackAndReceive(done, Job.class)
					: this.queues.receive(QUEUE, Job.class))
				.orElse(null);
			if (message == null) {
				refillWithQueueTemplate();
				message = this.queues.receive(QUEUE, Job.class).orElseThrow();
			}
			this.previous.set(message);
		}

	}

	static final class RawPopCount extends SpringContender {

		private final int count;

		RawPopCount(RedisServer redis, int count) {
			super(redis);
			this.count = count;
			refillRaw(this.template);
		}

		@Override
		public String name() {
			return "Spring Data Redis LPOP count " + this.count + " (JSON)";
		}

		@Override
		public int unitsPerOperation() {
			return this.count;
		}

		@Override
		public void operate(int thread, long iteration) {
			List<String> jsons = this.template.opsForList().leftPop(QUEUE, this.count);
			if (jsons == null || jsons.size() < this.count) {
				refillRaw(this.template);
				jsons = this.template.opsForList().leftPop(QUEUE, this.count);
			}
			for (String json : jsons) {
				JSON.readValue(json, Job.class);
			}
		}

	}

	static final class RedkitBatch extends SpringContender {

		private final ThreadLocal<List<QueueMessage<Job>>> previous = ThreadLocal.withInitial(List::of);

		private final int count;

		private final String store;

		RedkitBatch(RedisServer redis, int count) {
			this(redis, count, "list");
		}

		RedkitBatch(RedisServer redis, int count, String store) {
			super(redis, store(store));
			this.count = count;
			this.store = store;
			refillWithQueueTemplate();
		}

		@Override
		public String name() {
			return "Redkit ackAndReceive batch of " + this.count + suffix(this.store);
		}

		@Override
		public int unitsPerOperation() {
			return this.count;
		}

		@Override
		public void operate(int thread, long iteration) {
			List<QueueMessage<Job>> messages = this.queues.ackAndReceive(this.previous.get(), QUEUE, Job.class,
					this.count);
			if (messages.size() < this.count) {
				refillWithQueueTemplate();
			}
			this.previous.set(messages);
		}

	}

	/**
	 * A listener container (16 consumers) with a prefetch whose listener only counts: an
	 * operation is a claim of {@link #UNITS} handled and acknowledged messages, waited
	 * for without a hand-off per message (which would measure the hand-off). A producer
	 * thread keeps the queue topped up in small batches, so that the consumers never wait
	 * for a refill (a refill of {@code FILL} jobs by the waiting threads left them idle
	 * for half a second at a time).
	 */
	static final class RedkitListener extends SpringContender {

		private static final int UNITS = 200;

		private static final int TOP_UP = 10_000;

		private static final int TOP_UP_BELOW = 50_000;

		private final Thread producer;

		private volatile boolean producing = true;

		private final LongAdder handled = new LongAdder();

		private final AtomicLong claimed = new AtomicLong();

		private final int prefetch;

		private final QueueListenerContainer container;

		RedkitListener(RedisServer redis, int prefetch) {
			// each idle consumer blocks a pooled connection of its own
			super(redis, Map.of("redkit.queue.defaults.prefetch", prefetch, "spring.data.redis.lettuce.pool.max-active",
					64, "spring.data.redis.lettuce.pool.max-idle", 64));
			this.prefetch = prefetch;
			refillWithQueueTemplate();
			this.container = this.context.getBean(QueueListenerContainerFactory.class)
				.create(QUEUE, 16, new QueueMessageHandler() {

					@Override
					public java.lang.reflect.Type payloadType() {
						return Job.class;
					}

					@Override
					public void handle(@Nullable Object payload) {
						RedkitListener.this.handled.increment();
					}

				});
			this.container.start();
			this.producer = new Thread(this::keepToppedUp, "bench-producer");
			this.producer.setDaemon(true);
			this.producer.start();
		}

		private void keepToppedUp() {
			List<Job> batch = new ArrayList<>(TOP_UP);
			for (int i = 0; i < TOP_UP; i++) {
				batch.add(Job.of(0, i));
			}
			while (this.producing) {
				if (this.queues.size(QUEUE) < TOP_UP_BELOW) {
					this.queues.sendAll(QUEUE, batch);
				}
				else {
					LockSupport.parkNanos(1_000_000);
				}
			}
		}

		@Override
		public String name() {
			return "Redkit listener container, 16 consumers, prefetch " + this.prefetch;
		}

		@Override
		public int unitsPerOperation() {
			return UNITS;
		}

		@Override
		public void operate(int thread, long iteration) {
			long target = this.claimed.addAndGet(UNITS);
			while (this.handled.sum() < target) {
				LockSupport.parkNanos(1_000_000);
			}
		}

		@Override
		public void close() {
			this.producing = false;
			try {
				this.producer.join(10_000);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			this.container.stop();
			super.close();
		}

	}

	static final class RedissonPoll implements Contender {

		private final RedissonClient redisson;

		private final RBlockingQueue<String> queue;

		RedissonPoll(RedisServer redis) {
			this.redisson = Clients.redisson(redis);
			this.queue = this.redisson.getBlockingQueue(QUEUE, StringCodec.INSTANCE);
			refill();
		}

		@Override
		public String name() {
			return "Redisson RBlockingQueue.poll (no ack)";
		}

		@Override
		public void operate(int thread, long iteration) {
			String json = this.queue.poll();
			if (json == null) {
				refill();
				json = this.queue.poll();
			}
			JSON.readValue(json, Job.class);
		}

		private synchronized void refill() {
			if (this.queue.size() < 1000) {
				List<String> jobs = new ArrayList<>(FILL);
				for (int i = 0; i < FILL; i++) {
					jobs.add(JSON.writeValueAsString(Job.of(0, i)));
				}
				this.queue.addAll(jobs);
			}
		}

		@Override
		public void close() {
			this.redisson.shutdown();
		}

	}

}
