package io.github.redkit.benchmarks;

import java.util.ArrayList;
import java.util.List;

import io.github.redkit.queue.QueueMessage;
import io.github.redkit.queue.QueueTemplate;
import io.github.redkit.test.RedisServer;
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
 * pre-fill their queue and top it up when it runs dry.
 */
final class QueueSuite {

	static final String QUEUE = "bench-queue";

	static final JsonMapper JSON = JsonMapper.builder().build();

	private static final int FILL = 200_000;

	private QueueSuite() {
	}

	static Suite enqueue() {
		return new Suite("queue enqueue", List.of(RawPush::new, RedkitSend::new, RedissonOffer::new));
	}

	static Suite dequeue() {
		return new Suite("queue dequeue (+ack)",
				List.of(RawPop::new, RedkitReceiveAck::new, RedkitAckAndReceive::new, RedissonPoll::new));
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

	abstract static class SpringContender implements Contender {

		final ConfigurableApplicationContext context;

		final StringRedisTemplate template;

		final QueueTemplate queues;

		SpringContender(RedisServer redis) {
			this.context = Clients.springContext(redis);
			this.template = this.context.getBean(StringRedisTemplate.class);
			this.queues = this.context.getBean(QueueTemplate.class);
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

		private synchronized void refill() {
			if (this.template.opsForList().size(QUEUE) < 1000) {
				List<String> jobs = new ArrayList<>(FILL);
				for (int i = 0; i < FILL; i++) {
					jobs.add(JSON.writeValueAsString(Job.of(0, i)));
				}
				for (int from = 0; from < FILL; from += 10_000) {
					this.template.opsForList().rightPushAll(QUEUE, jobs.subList(from, from + 10_000));
				}
			}
		}

	}

	static final class RedkitReceiveAck extends SpringContender {

		RedkitReceiveAck(RedisServer redis) {
			super(redis);
			refillWithQueueTemplate();
		}

		@Override
		public String name() {
			return "Redkit QueueTemplate.receive + ack";
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

		RedkitAckAndReceive(RedisServer redis) {
			super(redis);
			refillWithQueueTemplate();
		}

		@Override
		public String name() {
			return "Redkit QueueTemplate.ackAndReceive";
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
