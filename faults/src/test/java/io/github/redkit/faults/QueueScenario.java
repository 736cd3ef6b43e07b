package io.github.redkit.faults;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import io.github.redkit.core.internal.LuaScript;
import io.github.redkit.queue.DeadLetter;
import io.github.redkit.queue.QueueMessage;
import io.github.redkit.queue.QueueStats;
import io.github.redkit.queue.QueueTemplate;
import io.github.redkit.queue.ReactiveQueueTemplate;
import io.github.redkit.testsupport.RespClient;
import org.jspecify.annotations.Nullable;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * Queues: clients of three instances send unique messages (one at a time, in bulk,
 * delayed, through the reactive face) and poll for messages themselves (quick, slow with
 * extensions, stalled past the visibility timeout, failing, released, acknowledged with
 * the next take), while each instance's {@code @QueueListener} handles them, sometimes
 * throwing, sometimes running longer than the visibility timeout. Every take, extension,
 * settlement and handling goes to the run's {@link QueueLedger}. Once the faults heal the
 * queue is drained, and the checker holds the record to the README: at-least-once
 * delivery (or a dead letter), one holder at a time while the visibility lasts (from the
 * take, or from the last extension Redis confirmed), and at most {@code max-attempts}
 * handled deliveries.
 */
class QueueScenario implements Scenario {

	static final String QUEUE = "jobs";

	static final String SEND = "queue_send";

	static final String TAKE = "queue_claim";

	static final String DELAY = "queue_delay";

	static final String REQUEUE = "queue_requeue";

	static final String STREAM_SEND = "queue_stream_send";

	static final String STREAM_TAKE = "queue_stream_take";

	static final String STREAM_REQUEUE = "queue_stream_requeue";

	static final long VISIBILITY_MILLIS = 600;

	static final int MAX_ATTEMPTS = 3;

	private static final long VISIBILITY_NANOS = Duration.ofMillis(VISIBILITY_MILLIS).toNanos();

	/**
	 * Slack between this machine's monotonic clock and Redis' wall clock (milliseconds of
	 * deadline, a slewing clock).
	 */
	private static final long MARGIN_NANOS = Duration.ofMillis(10).toNanos();

	private static final Duration DRAIN = Duration.ofSeconds(40);

	/**
	 * Every element and value of every key of the queue, whatever its type, in one script
	 * (an atomic snapshot). The keys are found with a SCAN loop rather than KEYS (which
	 * blocks a large server and is often renamed away); a key SCAN returns twice is read
	 * once.
	 */
	private static final String HELD = """
			local keys, seen, cursor = {}, {}, '0'
			repeat
				local page = redis.call('SCAN', cursor, 'MATCH', ARGV[1], 'COUNT', 1000)
				cursor = page[1]
				for _, key in ipairs(page[2]) do
					if not seen[key] then
						seen[key] = true
						keys[#keys + 1] = key
					end
				end
			until cursor == '0'
			local out = {}
			for _, key in ipairs(keys) do
				local kind = redis.call('TYPE', key)['ok']
				local values = {}
				if kind == 'list' then values = redis.call('LRANGE', key, 0, -1)
				elseif kind == 'zset' then values = redis.call('ZRANGE', key, 0, -1)
				elseif kind == 'hash' then values = redis.call('HVALS', key)
				elseif kind == 'set' then values = redis.call('SMEMBERS', key)
				elseif kind == 'string' then values = { redis.call('GET', key) }
				elseif kind == 'stream' then
					for _, entry in ipairs(redis.call('XRANGE', key, '-', '+')) do
						values[#values + 1] = table.concat(entry[2], ' ')
					end
				end
				for _, value in ipairs(values) do out[#out + 1] = value end
			end
			return out
			""";

	/** A payload as the scenario makes them, in its JSON string. */
	private static final Pattern PAYLOAD = Pattern.compile("\"(p\\d+-\\d+)\"");

	private final Breakage breakage;

	private final String run = UUID.randomUUID().toString();

	private final QueueLedger ledger = QueueLedger.register(this.run);

	private final AtomicLong sequence = new AtomicLong();

	private volatile Set<String> deadLettered = Set.of();

	private volatile String drainFailure;

	private final Optional<Path> server;

	/** The scripts the cuts after a write hit; none: the next request. */
	private final Set<String> aim;

	/**
	 * Whether the queue is kept in a stream ({@code store: stream}) rather than lists.
	 */
	private final boolean stream;

	QueueScenario() {
		this(Breakage.NONE);
	}

	QueueScenario(Breakage breakage) {
		this(breakage, Optional.empty(), Set.of());
	}

	/**
	 * On another server, such as Valkey 9.
	 */
	QueueScenario(Optional<Path> server) {
		this(Breakage.NONE, server, Set.of());
	}

	private QueueScenario(Breakage breakage, Optional<Path> server, Set<String> aim) {
		this(breakage, server, aim, false);
	}

	private QueueScenario(Breakage breakage, Optional<Path> server, Set<String> aim, boolean stream) {
		this.breakage = breakage;
		this.server = server;
		this.aim = aim;
		this.stream = stream;
	}

	/**
	 * The queue kept in a stream ({@code store: stream}, issue 46), judged by the same
	 * checker; its clients send at once what they would have delayed (a stream queue has
	 * no delayed messages).
	 * @return the scenario
	 */
	static QueueScenario onStreams() {
		return new QueueScenario(Breakage.NONE, Optional.empty(), Set.of(), true);
	}

	/**
	 * The queue kept in a stream, its cuts after a write aimed at some of its scripts'
	 * calls (as {@link #aimedAt}).
	 * @param breakage the build
	 * @param scripts the scripts
	 * @return the scenario
	 */
	static QueueScenario onStreamsAimedAt(Breakage breakage, String... scripts) {
		return new QueueScenario(breakage, Optional.empty(), Set.of(scripts), true);
	}

	/**
	 * A run whose cuts after a write hit only some scripts' calls, so that a replay of
	 * those commands happens in every run: the good build's, or one without a script's
	 * dedupe. Aimed at {@code queue_requeue}, clients also re-queue dead letters by id,
	 * and one payload in three is one every handler fails (so that there are dead
	 * letters); aimed at {@code queue_delay}, the queue collapses delayed sends
	 * ({@code first-wins}), whose answer then tells a replay.
	 * @param breakage the build
	 * @param scripts the scripts
	 * @return the scenario
	 */
	static QueueScenario aimedAt(Breakage breakage, String... scripts) {
		return new QueueScenario(breakage, Optional.empty(), Set.of(scripts));
	}

	@Override
	public Map<String, byte[]> cutsAfterWriteHit() {
		Map<String, byte[]> hit = new LinkedHashMap<>();
		this.aim.stream().sorted().forEach((name) -> {
			LuaScript<Long> script = LuaScript.load(name, Long.class);
			String sha1 = name.equals(this.breakage.script())
					? DedupeRemoved.sha1(script, this.breakage.dedupe(), this.breakage.replacement())
					: script.redisScript().getSha1();
			hit.put(name, sha1.getBytes(StandardCharsets.US_ASCII));
		});
		return hit;
	}

	private boolean aimedAt(String script) {
		return this.aim.contains(script) || (script.equals(REQUEUE) && this.aim.contains(STREAM_REQUEUE));
	}

	@Override
	public Optional<Path> server() {
		return this.server;
	}

	/**
	 * The run's record, for a test that judges a history of its own.
	 */
	QueueLedger ledger() {
		return this.ledger;
	}

	@Override
	public String capability() {
		return this.stream ? "queues on streams" : "queues";
	}

	@Override
	public String guarantee() {
		return "once the faults heal and the queue drains, every acknowledged send was handled (a handler returned) "
				+ "or dead-lettered, and nothing handled was never sent; a message is taken again only after its "
				+ "holder sent its settlement or its visibility ran out, counted from the take or from the last "
				+ "extension Redis confirmed (`extend` true, the listeners' heartbeat included); no delivery past "
				+ "`max-attempts` reaches a handler and at most `max-attempts` deliveries of a message are handled; "
				+ "a message sent once is first delivered once (one entry in the queue), again only as often as a "
				+ "requeue of it answered true or an unknown outcome; every delivery a take counted reached a consumer "
				+ "unless a take of unknown outcome could have popped it (else a take whose reply was lost, sent "
				+ "again, popped another batch: a delivery burnt); a delayed send answers collapsed only for a payload "
				+ "already pending (never: payloads are unique). "
				+ "Judged per epoch: a send Redis held (queued, in flight, delayed or dead-lettered, as read just before "
				+ "the kill) when it restarted empty, or acknowledged after the snapshot Redis was restarted on, may be "
				+ "lost; a restored snapshot restores the delivery counts; a second take across a restart or a step of "
				+ "Redis' clock forward is not judged (a step back only moves deadlines away)"
				+ (this.stream ? "; on streams, a release sent after a rollback by the holder of a take it undid gives "
						+ "back the delivery of the take after it, which has the same entry id and count: one more "
						+ "handling each" : "");
	}

	@Override
	public Set<Fault> faults() {
		return EnumSet.allOf(Fault.class);
	}

	@Override
	public List<String> properties() {
		String queue = "redkit.queue.queues." + QUEUE;
		List<String> properties = new ArrayList<>(List.of("faults.run=" + this.run, "faults.broken=" + this.breakage,
				"redkit.queue.poll-timeout=200ms", "redkit.queue.shutdown-timeout=500ms",
				queue + ".visibility-timeout=" + VISIBILITY_MILLIS + "ms", queue + ".max-attempts=" + MAX_ATTEMPTS,
				queue + ".backoff.type=fixed", queue + ".backoff.delay=50ms", queue + ".backoff.jitter=0"));
		if (this.stream) {
			properties.add(queue + ".store=stream");
		}
		if (aimedAt(DELAY)) {
			// payloads are unique: a delayed send answered "collapsed" was applied twice
			properties.add(queue + ".collapse=first-wins");
		}
		return properties;
	}

	@Override
	public List<String> instanceProperties(int instance, Rig rig) {
		List<String> properties = new ArrayList<>(Scenario.super.instanceProperties(instance, rig));
		properties.add("faults.instance=" + instance);
		return properties;
	}

	@Override
	public List<Class<?>> sources() {
		return List.of(QueueRecorder.class);
	}

	@Override
	public void operate(Client client) throws Exception {
		this.ledger.bind(client.history());
		int mode = client.random().nextInt(20);
		if (mode < 8) {
			String payload = payload(client);
			send(client, List.of(payload), () -> {
				client.bean(QueueTemplate.class).send(QUEUE, payload);
				return null;
			});
		}
		else if (mode < 9) {
			List<String> payloads = List.of(payload(client), payload(client), payload(client));
			send(client, payloads, () -> {
				client.bean(QueueTemplate.class).sendAll(QUEUE, payloads);
				return null;
			});
		}
		else if (mode < 10) {
			String payload = payload(client);
			send(client, List.of(payload),
					() -> client.bean(ReactiveQueueTemplate.class).send(QUEUE, payload).block(Duration.ofSeconds(2)));
		}
		else if (mode < 11 && this.stream) {
			String payload = payload(client);
			send(client, List.of(payload), () -> {
				client.bean(QueueTemplate.class).send(QUEUE, payload);
				return null;
			});
		}
		else if (mode < 11) {
			String payload = payload(client);
			Duration delay = Duration.ofMillis(20 + client.random().nextInt(300));
			send(client, List.of(payload), () -> client.bean(QueueTemplate.class).sendDelayed(QUEUE, payload, delay));
		}
		else if (mode < 13 && aimedAt(REQUEUE)) {
			requeue(client);
		}
		else {
			consume(client);
		}
		LockSupport.parkNanos(client.random().nextInt(5_000_000));
	}

	private String payload(Client client) {
		long sequence = this.sequence.incrementAndGet();
		String payload = "p" + client.process() + "-" + sequence;
		if (aimedAt(REQUEUE) && sequence % 3 == 0) {
			this.ledger.poison.add(payload);
		}
		return payload;
	}

	/**
	 * Re-queues one of the oldest dead letters by its id; the answer goes to the history
	 * (a requeue by id sent again without its record answers {@code false}).
	 */
	private void requeue(Client client) {
		QueueTemplate template = client.bean(QueueTemplate.class);
		List<DeadLetter> letters = attempt(() -> template.deadLetters(QUEUE, 5));
		if (letters == null || letters.isEmpty()) {
			return;
		}
		DeadLetter letter = letters.get(client.random().nextInt(letters.size()));
		String json = letter.payloadJson();
		String payload = json.substring(1, json.length() - 1);
		History history = client.history();
		long invoked = history.now();
		Outcome outcome = Outcome.OK;
		Object value;
		try {
			value = template.requeueDeadLetter(QUEUE, letter.id());
		}
		catch (RuntimeException ex) {
			outcome = Outcome.UNKNOWN;
			value = History.describe(ex);
		}
		history.add(new Op(client.process(), "requeue", payload, 0, invoked, history.now(), outcome, value));
	}

	private static void send(Client client, List<String> payloads, java.util.function.Supplier<?> send) {
		History history = client.history();
		long invoked = history.now();
		Outcome outcome = Outcome.OK;
		Object value = null;
		try {
			// a delayed send's answer: false is "collapsed"
			value = send.get();
		}
		catch (RuntimeException ex) {
			outcome = Outcome.UNKNOWN;
			value = History.describe(ex);
		}
		long completed = history.now();
		for (String payload : payloads) {
			history.add(new Op(client.process(), "send", payload, 0, invoked, completed, outcome, value));
		}
	}

	/**
	 * A polling consumer: takes a message and handles it quickly, slowly while extending
	 * it, stalled past its visibility without extending it, or fails or releases it;
	 * acknowledges it alone or with the next take.
	 */
	private void consume(Client client) {
		QueueTemplate template = client.bean(QueueTemplate.class);
		// the thread, as its takes name it (after their instance)
		String consumer = Thread.currentThread().getName();
		Optional<QueueMessage<String>> taken = attempt(() -> template.receive(QUEUE, String.class));
		for (int round = 0; round < 3 && taken != null && taken.isPresent(); round++) {
			QueueMessage<String> message = taken.get();
			taken = null;
			if (message.deliveries() > MAX_ATTEMPTS) {
				// as a listener consumer does: its earlier consumers died with it
				attempt(() -> template.fail(message, new IllegalStateException("delivered too often")));
				return;
			}
			int behaviour = client.random().nextInt(10);
			if (behaviour == 0) {
				attempt(() -> template.release(message));
				return;
			}
			boolean ok = handle(client, template, message, consumer, behaviour);
			if (!ok) {
				attempt(() -> template.fail(message, new IllegalStateException("a failing consumer")));
			}
			else if (behaviour >= 8) {
				taken = attempt(() -> template.ackAndReceive(message, String.class));
			}
			else {
				attempt(() -> template.ack(message));
			}
		}
	}

	private boolean handle(Client client, QueueTemplate template, QueueMessage<String> message, String consumer,
			int behaviour) {
		this.ledger.handling.incrementAndGet();
		long start = this.ledger.now();
		boolean ok = behaviour != 7 && !this.ledger.poison.contains(message.payload());
		try {
			if (behaviour == 5) {
				// slow work that keeps its message, as the README says to
				for (int step = 0; step < 4; step++) {
					LockSupport.parkNanos(VISIBILITY_NANOS / 3);
					Boolean extended = attempt(() -> template.extend(message, Duration.ofMillis(VISIBILITY_MILLIS)));
					if (Boolean.FALSE.equals(extended)) {
						break;
					}
				}
			}
			else if (behaviour == 6) {
				// a stalled consumer: its visibility runs out
				LockSupport
					.parkNanos(VISIBILITY_NANOS + Duration.ofMillis(100 + client.random().nextInt(400)).toNanos());
			}
		}
		finally {
			this.ledger.handlings.add(new QueueLedger.Handling(RecordingQueueTemplate.take(message),
					String.valueOf(message.payload()), consumer, start, this.ledger.now(), ok));
			this.ledger.handling.decrementAndGet();
		}
		return ok;
	}

	private static <T> T attempt(java.util.function.Supplier<T> call) {
		try {
			return call.get();
		}
		catch (RuntimeException ex) {
			// Redis unreachable: the record has what was sent, the message comes back
			return null;
		}
	}

	@Override
	public void settle(List<ConfigurableApplicationContext> instances, History history) {
		this.ledger.bind(history);
		QueueTemplate template = instances.get(0).getBean(QueueTemplate.class);
		long started = System.nanoTime();
		long deadline = started + DRAIN.toNanos();
		int quiet = 0;
		QueueStats stats = null;
		while (quiet < 3) {
			if (System.nanoTime() - deadline > 0) {
				this.drainFailure = "the queue did not drain within " + DRAIN.toSeconds()
						+ " s after the faults healed: " + stats + ", handlers running: " + this.ledger.handling.get();
				break;
			}
			try {
				stats = template.stats(QUEUE);
				boolean empty = stats.ready() + stats.delayed() + stats.inFlight() == 0
						&& this.ledger.handling.get() == 0;
				quiet = empty ? quiet + 1 : 0;
			}
			catch (RuntimeException ex) {
				quiet = 0;
			}
			LockSupport.parkNanos(100_000_000);
		}
		history.add(new Op(-1, "drain", QUEUE, (System.nanoTime() - started) / 1_000_000, history.now(), history.now(),
				(this.drainFailure == null) ? Outcome.OK : Outcome.UNKNOWN, stats));
		Set<String> dead = new HashSet<>();
		for (DeadLetter letter : template.deadLetters(QUEUE, 1_000_000)) {
			String json = letter.payloadJson();
			dead.add(json.substring(1, json.length() - 1));
		}
		this.deadLettered = dead;
	}

	@Override
	public Record evidence() {
		return new Evidence(List.copyOf(this.ledger.takes), List.copyOf(this.ledger.extensions),
				List.copyOf(this.ledger.settlements), List.copyOf(this.ledger.handlings), this.deadLettered,
				this.drainFailure, List.copyOf(this.ledger.calls));
	}

	@Override
	public void restore(Object evidence) {
		Evidence recorded = (Evidence) evidence;
		this.ledger.takes.addAll(recorded.takes());
		this.ledger.extensions.addAll(recorded.extensions());
		this.ledger.settlements.addAll(recorded.settlements());
		this.ledger.handlings.addAll(recorded.handlings());
		if (recorded.calls() != null) {
			// recorded before the take calls were
			this.ledger.calls.addAll(recorded.calls());
		}
		this.deadLettered = recorded.deadLettered();
		this.drainFailure = recorded.drainFailure();
	}

	@Override
	public List<String> check(History history) {
		QueueLedger.forget(this.run);
		List<String> violations = new ArrayList<>();
		if (this.drainFailure != null) {
			violations.add(this.drainFailure);
		}
		List<FaultRecord> faults = history.faults();
		Map<String, Op> sends = history.ops()
			.stream()
			.filter((op) -> op.action().equals("send"))
			.collect(Collectors.toMap(Op::key, Function.identity()));
		Set<String> handled = this.ledger.handlings.stream()
			.filter(QueueLedger.Handling::ok)
			.map(QueueLedger.Handling::payload)
			.collect(Collectors.toSet());
		for (Op send : sends.values()) {
			if (send.ok() && !handled.contains(send.key()) && !this.deadLettered.contains(send.key())
					&& !mayBeLost(send, faults)) {
				violations.add("an acknowledged send was neither handled nor dead-lettered: " + send);
			}
		}
		TakeKeys takes = new TakeKeys(this.ledger.takes);
		for (QueueLedger.Handling handling : this.ledger.handlings) {
			Op send = sends.get(handling.payload());
			if (send == null || send.invoked() > handling.start()) {
				violations.add("handled a message never sent: " + handling);
			}
			QueueLedger.Take take = takes.at(handling.take(), handling.start(), handling.consumer());
			if (take == null) {
				// the max-attempts rules judge a handling by its take's count: one
				// without a take would pass them unjudged
				violations.add("handled a delivery no recorded take answered: " + handling);
			}
			else if (take.deliveries() > MAX_ATTEMPTS) {
				violations.add("a delivery past max-attempts (" + MAX_ATTEMPTS + ") reached a handler: " + take + "; "
						+ handling);
			}
		}
		checkAttempts(takes, history, violations);
		checkEnqueuedOnce(takes, history, violations);
		Set<String> requeued = history.ops()
			.stream()
			.filter((op) -> op.action().equals("requeue"))
			.map(Op::key)
			.collect(Collectors.toSet());
		checkVisibility(takes, faults, requeued, violations);
		checkCollapsed(history, violations);
		checkBurnt(history, violations);
		return violations;
	}

	/**
	 * A send may be lost when Redis forgot it: restarted empty while it held the message
	 * (queued, in flight, delayed or dead-lettered, as read the moment before the kill),
	 * or while the send may still have been landing (it ended after that read began); or
	 * restarted on a snapshot taken before it completed. A send Redis did not hold when
	 * it was killed, and that had ended before, was never there: a restart does not
	 * excuse it.
	 */
	private static boolean mayBeLost(Op send, List<FaultRecord> faults) {
		return faults.stream().anyMatch((fault) -> switch (fault.event().fault()) {
			case RESTART_EMPTY -> send.invoked() < fault.healed() && (send.completed() >= fault.started()
					|| !(fault.held() instanceof Set<?> held) || held.contains(send.key()));
			case RESTART_FROM_SNAPSHOT, FAILOVER_BEHIND ->
				send.completed() >= fault.started() && send.invoked() < fault.healed();
			default -> false;
		});
	}

	/**
	 * The payloads of every message of the queue, ready, in flight, delayed or
	 * dead-lettered, in one script, so that nothing moves between two reads.
	 */
	@Override
	public Set<String> beforeRestartEmpty(RespClient redis) {
		Object elements = redis.call("EVAL", HELD, "0", "faults:queue:{" + QUEUE + "}:*");
		Set<String> payloads = new HashSet<>();
		if (elements instanceof List<?> list) {
			for (Object element : list) {
				Matcher matcher = PAYLOAD.matcher(String.valueOf(element));
				while (matcher.find()) {
					payloads.add(matcher.group(1));
				}
			}
		}
		return payloads;
	}

	/**
	 * At most {@code max-attempts} handled deliveries of a message per view of one Redis
	 * memory (a restored snapshot restores the counts); the count of a handled delivery
	 * is its take's.
	 */
	private void checkAttempts(TakeKeys takes, History history, List<String> violations) {
		List<FaultRecord> dataLoss = history.forgetting()
			.stream()
			.filter((fault) -> fault.event().fault() != Fault.CLOCK_JUMP)
			.toList();
		Map<String, List<Op>> handledTakes = new java.util.HashMap<>();
		for (QueueLedger.Handling handling : this.ledger.handlings) {
			QueueLedger.Take take = takes.at(handling.take(), handling.start(), handling.consumer());
			if (take != null) {
				handledTakes.computeIfAbsent(take.payload(), (payload) -> new ArrayList<>())
					.add(new Op(0, "handled", take.payload(), take.deliveries(), take.invoked(), take.completed(),
							Outcome.OK, new HandledTake(handling, take)));
			}
		}
		Map<String, List<Long>> requeues = history.ops()
			.stream()
			.filter((op) -> op.action().equals("requeue") && (!op.ok() || Boolean.TRUE.equals(op.value())))
			.collect(Collectors.groupingBy(Op::key, Collectors.mapping(Op::invoked, Collectors.toList())));
		// the faults in the order Epochs cuts at them: view i + 1 follows fault i
		List<FaultRecord> cuts = dataLoss.stream().sorted(Comparator.comparingLong(FaultRecord::started)).toList();
		handledTakes.forEach((payload, all) -> {
			for (List<Op> ops : lives(all, requeues.getOrDefault(payload, List.of()))) {
				List<List<Op>> views = Epochs.views(ops, dataLoss);
				for (int i = 0; i < views.size(); i++) {
					List<Op> view = views.get(i);
					long givenBack = (i > 0) ? givenBackAfter(takes, payload, cuts, i - 1) : 0;
					if (view.size() > MAX_ATTEMPTS + givenBack) {
						violations.add(String.format(
								"%s handled %d times (max-attempts %d, %d given back by a "
										+ "release of a take a rollback undid):%n    %s",
								payload, view.size(), MAX_ATTEMPTS, givenBack,
								view.stream()
									.map((op) -> op.value().toString())
									.collect(Collectors.joining("\n    "))));
					}
				}
			}
		});
	}

	/**
	 * The deliveries given back in the epoch after a rollback by a release of a take the
	 * rollback undid, which a stream queue cannot tell from the take after it: a stream
	 * take is its entry id and delivery count, and the pending list restored counts from
	 * before it, so the take of the same count after it has the same key and the release
	 * gives its delivery back (docs/queues.md; a list take's token is unique, and the
	 * release answers false). Counted per release sent in the epoch by a consumer whose
	 * last take with its key may have run between the snapshot and the rollback.
	 */
	private long givenBackAfter(TakeKeys takes, String payload, List<FaultRecord> cuts, int cut) {
		FaultRecord rollback = cuts.get(cut);
		if (!this.stream || !rollback.event().fault().keepsWhatCameBefore()) {
			return 0;
		}
		long until = (cut + 1 < cuts.size()) ? cuts.get(cut + 1).started() : Long.MAX_VALUE;
		return this.ledger.settlements.stream()
			.filter((settlement) -> settlement.how().equals("release") && settlement.invoked() > rollback.healed()
					&& settlement.invoked() < until)
			.map((settlement) -> takes.at(settlement.take(), settlement.invoked(), settlement.consumer()))
			.filter((take) -> take != null && take.payload().equals(payload) && take.completed() >= rollback.started()
					&& take.invoked() < Epochs.forgetsFrom(rollback))
			.count();
	}

	/**
	 * The ledger's takes by their key, which a handling, a settlement or an extension
	 * names: each names the take with its key that completed last before it began, by its
	 * consumer when it has one. A list take's key is unique (its random token); a stream
	 * take's is its entry id and delivery count, which comes again after a release (the
	 * count given back) and after a rollback (a restart on an older snapshot, a failover
	 * to a replica behind: the pending list counts from before it), so the first take
	 * with the key would put a later handling in the epoch before the rollback (issue
	 * 46). By completion, not by start: a take sent before another may read after it (a
	 * listener's take waits for the ready list).
	 */
	private static final class TakeKeys {

		private final Map<String, List<QueueLedger.Take>> byKey;

		TakeKeys(List<QueueLedger.Take> takes) {
			this.byKey = takes.stream()
				.sorted(Comparator.comparingLong(QueueLedger.Take::completed))
				.collect(Collectors.groupingBy(QueueLedger.Take::take));
		}

		/**
		 * The take a record names.
		 * @param key the take's key
		 * @param time when the record began
		 * @param consumer who sent it ({@code i<instance>/<thread>}, or the thread), or
		 * {@code null}
		 * @return the take with the key that completed last by then, of the consumer when
		 * it took one (else of any, else the first one), or {@code null} when none was
		 * recorded
		 */
		QueueLedger.@Nullable Take at(String key, long time, @Nullable String consumer) {
			List<QueueLedger.Take> takes = this.byKey.getOrDefault(key, List.of());
			QueueLedger.Take named = takes.isEmpty() ? null : takes.get(0);
			QueueLedger.Take own = null;
			for (QueueLedger.Take take : takes) {
				if (take.completed() <= time) {
					named = take;
					if (consumer != null
							&& (take.consumer().equals(consumer) || take.consumer().endsWith("/" + consumer))) {
						own = take;
					}
				}
			}
			return (own != null) ? own : named;
		}

	}

	/**
	 * A handling with the take it handled, as a violation lists them.
	 */
	private record HandledTake(QueueLedger.Handling handling, QueueLedger.Take take) {

		@Override
		public String toString() {
			return this.handling + " of " + this.take;
		}

	}

	/**
	 * A re-queued dead letter starts its deliveries afresh: a message's handlings, cut at
	 * each requeue of it that may have moved it (answered true, or unknown). A handling
	 * of the life before ended before its last failure made the dead letter, so before
	 * the requeue was sent.
	 */
	private static List<List<Op>> lives(List<Op> handled, List<Long> requeues) {
		if (requeues.isEmpty()) {
			return List.of(handled);
		}
		Map<Long, List<Op>> lives = new java.util.TreeMap<>();
		for (Op op : handled) {
			long start = ((HandledTake) op.value()).handling().start();
			lives
				.computeIfAbsent(requeues.stream().filter((requeue) -> requeue < start).count(),
						(life) -> new ArrayList<>())
				.add(op);
		}
		return List.copyOf(lives.values());
	}

	/**
	 * A message sent once is enqueued once: one first delivery of it per view of one
	 * Redis memory (a restored snapshot can hand out a delivery again with the count it
	 * held) that its consumer did not release (a release gives the delivery back
	 * uncounted). Two first deliveries are two entries of one message: a send applied
	 * twice.
	 */
	private void checkEnqueuedOnce(TakeKeys keys, History history, List<String> violations) {
		List<FaultRecord> dataLoss = history.forgetting()
			.stream()
			.filter((fault) -> fault.event().fault() != Fault.CLOCK_JUMP)
			.toList();
		Set<QueueLedger.Take> released = this.ledger.settlements.stream()
			.filter((settlement) -> settlement.how().equals("release"))
			.map((settlement) -> keys.at(settlement.take(), settlement.invoked(), settlement.consumer()))
			.filter(Objects::nonNull)
			.collect(Collectors.toSet());
		Map<String, List<Op>> firstDeliveries = new java.util.HashMap<>();
		for (QueueLedger.Take take : this.ledger.takes) {
			if (take.deliveries() == 1 && !released.contains(take)) {
				firstDeliveries.computeIfAbsent(take.payload(), (payload) -> new ArrayList<>())
					.add(new Op(0, "taken", take.payload(), 1, take.invoked(), take.completed(), Outcome.OK, take));
			}
		}
		Map<String, String> sentBy = new java.util.HashMap<>();
		history.ops()
			.stream()
			.filter((op) -> op.action().equals("send"))
			.forEach((op) -> sentBy.merge(op.key(), op.toString(), (a, b) -> a + "; " + b));
		// a dead letter re-queued (the call answered true, or its outcome is unknown) is
		// first delivered again
		Map<String, List<Op>> requeues = history.ops()
			.stream()
			.filter((op) -> op.action().equals("requeue"))
			.collect(Collectors.groupingBy(Op::key));
		firstDeliveries.forEach((payload, ops) -> {
			List<Op> calls = requeues.getOrDefault(payload, List.of());
			for (List<Op> view : Epochs.views(ops, dataLoss)) {
				// the k-th first delivery again needs k requeues sent before it was
				// answered (a requeue sent later cannot have moved it)
				List<Op> ordered = view.stream().sorted(Comparator.comparingLong(Op::completed)).toList();
				long requeued = 0;
				boolean explained = true;
				for (int k = 1; k < ordered.size() && explained; k++) {
					long answered = ordered.get(k).completed();
					requeued = calls.stream()
						.filter((op) -> (!op.ok() || Boolean.TRUE.equals(op.value())) && op.invoked() < answered)
						.count();
					explained = requeued >= k;
				}
				if (!explained) {
					String takes = ordered.stream()
						.map((op) -> op.value().toString())
						.collect(Collectors.joining("\n    "));
					if (requeued == 0) {
						violations
							.add(String.format("%s enqueued %d times (first delivered %d times), sent by %s:%n    %s",
									payload, view.size(), view.size(), sentBy.getOrDefault(payload, "no send"), takes));
					}
					else {
						violations.add(String.format(
								"%s re-queued %d times (first delivered %d times) though %d requeue calls answered "
										+ "true or unknown: a requeue applied and answered otherwise:%n    %s%n    %s",
								payload, view.size() - 1, view.size(), requeued,
								calls.stream().map(Op::toString).collect(Collectors.joining("\n    ")), takes));
					}
				}
			}
		});
	}

	/**
	 * A message is taken again only once its holder sent a settlement or its visibility
	 * ran out: the deadline is at least the take's start plus the visibility timeout, or
	 * an extension's start plus its visibility when Redis answered it {@code true}. A
	 * take judged against a holder's is one sent after the holder's was answered, or, its
	 * call overlapping the holder's (a listener's take waits for the ready list), one
	 * that counted more deliveries of the same message, which Redis therefore ran after
	 * (a message never re-queued, whose count only grows).
	 */
	private void checkVisibility(TakeKeys keys, List<FaultRecord> faults, Set<String> requeued,
			List<String> violations) {
		Map<QueueLedger.Take, List<QueueLedger.Extension>> extensions = new java.util.HashMap<>();
		this.ledger.extensions.stream()
			.filter((extension) -> Boolean.TRUE.equals(extension.extended()))
			.forEach((extension) -> {
				QueueLedger.Take take = keys.at(extension.take(), extension.invoked(), null);
				if (take != null) {
					extensions.computeIfAbsent(take, (key) -> new ArrayList<>()).add(extension);
				}
			});
		Map<QueueLedger.Take, Long> settled = new java.util.HashMap<>();
		this.ledger.settlements.forEach((settlement) -> {
			QueueLedger.Take take = keys.at(settlement.take(), settlement.invoked(), settlement.consumer());
			if (take != null) {
				settled.merge(take, settlement.invoked(), Math::min);
			}
		});
		Map<String, List<QueueLedger.Take>> byPayload = this.ledger.takes.stream()
			.sorted(Comparator.comparingLong(QueueLedger.Take::invoked))
			.collect(Collectors.groupingBy(QueueLedger.Take::payload));
		byPayload.forEach((payload, takes) -> {
			for (QueueLedger.Take held : takes) {
				long visible = held.invoked() + VISIBILITY_NANOS;
				for (QueueLedger.Extension extension : extensions.getOrDefault(held, List.of())) {
					visible = Math.max(visible, extension.invoked() + extension.visibilityNanos());
				}
				long until = Math.min(visible, settled.getOrDefault(held, Long.MAX_VALUE));
				for (QueueLedger.Take again : takes) {
					// by its count only when the calls overlapped: a release gives a
					// delivery back, so an earlier take may count more than the holder's
					boolean overlapped = again.invoked() <= held.completed() && again.completed() >= held.invoked();
					boolean after = again.invoked() > held.completed()
							|| (overlapped && again.deliveries() > held.deliveries() && !requeued.contains(payload)
									&& again.messageId().equals(held.messageId()));
					if (after && again.completed() + MARGIN_NANOS < until
							&& !forgotBetween(faults, held.invoked(), again.completed())) {
						violations.add(String.format(
								"%s was taken again while its holder still had it (visible to it until %.1f ms, "
										+ "settled at %s):%n    %s%n    %s",
								payload, visible / 1e6,
								settled.containsKey(held) ? String.format("%.1f ms", settled.get(held) / 1e6) : "never",
								held, again));
					}
				}
			}
		});
	}

	/**
	 * Payloads are unique, so no delayed send has another pending with its payload: one
	 * answered "collapsed" ({@code false}) was applied twice, its copy collapsed into
	 * itself (a {@code first-wins} or {@code last-wins} queue).
	 */
	private static void checkCollapsed(History history, List<String> violations) {
		history.ops()
			.stream()
			.filter((op) -> op.action().equals("send") && op.ok() && Boolean.FALSE.equals(op.value()))
			.forEach((op) -> violations.add(op.key() + " answered collapsed (false) though no other message had its "
					+ "payload: a delayed send applied twice: " + op));
	}

	/**
	 * Every delivery a take counted reached a consumer, unless the take's outcome is
	 * unknown to its caller. A message delivered as the {@code k}-th time with no
	 * {@code (k-1)}-th delivery seen by any consumer before was popped by a take whose
	 * answer the consumer never read: either a take call that failed or lasted past the
	 * visibility timeout (excused), or one whose reply was lost and that was sent again
	 * and answered another batch: a delivery burnt by a lost take, counted against
	 * {@code max-attempts} and held until its visibility ran out. Not judged across a
	 * fault that makes Redis forget.
	 */
	private void checkBurnt(History history, List<String> violations) {
		List<FaultRecord> faults = history.faults();
		List<FaultRecord> cuts = faults.stream()
			.filter((fault) -> fault.event().fault() == Fault.CUT_AFTER_WRITE)
			.toList();
		Map<String, Long> sent = new java.util.HashMap<>();
		history.ops()
			.stream()
			.filter((op) -> op.action().equals("send"))
			.forEach((op) -> sent.merge(op.key(), op.invoked(), Math::min));
		Map<String, List<QueueLedger.Take>> byPayload = this.ledger.takes.stream()
			.sorted(Comparator.comparingLong(QueueLedger.Take::invoked))
			.collect(Collectors.groupingBy(QueueLedger.Take::payload));
		byPayload.forEach((payload, takes) -> {
			for (QueueLedger.Take again : takes) {
				int lost = again.deliveries() - 1;
				// a listener's take is sent when its wait for the ready list begins: it
				// may have begun before the take of the delivery before (failed, and due
				// again)
				if (lost < 1 || takes.stream()
					.anyMatch((take) -> take.deliveries() == lost && take.invoked() < again.completed())) {
					continue;
				}
				// the lost delivery was taken after the message's last earlier delivery
				// seen (or its send), and its visibility ran out before this take
				long after = takes.stream()
					.filter((take) -> take.deliveries() < lost && take.invoked() < again.invoked())
					.mapToLong(QueueLedger.Take::invoked)
					.max()
					.orElse(sent.getOrDefault(payload, Long.MIN_VALUE / 4));
				long before = again.completed() - VISIBILITY_NANOS + MARGIN_NANOS;
				boolean excused = this.ledger.calls.stream()
					.anyMatch((call) -> (call.unknown() || call.completed() - call.invoked() >= VISIBILITY_NANOS)
							&& call.invoked() <= before && call.completed() >= after)
						|| faults.stream()
							.anyMatch((fault) -> fault.event().fault().forgets()
									&& fault.overlaps(after, again.completed()));
				if (excused) {
					continue;
				}
				String suspects = cutTakes(cuts).stream()
					.filter((call) -> call.invoked() >= after && call.invoked() <= before)
					.map(QueueLedger.TakeCall::toString)
					.collect(Collectors.joining(", "));
				violations.add(String.format(
						"%s (message %s): delivery %d was counted but reached no consumer, and was delivered as %d "
								+ "to take %s only after its visibility ran out; no take whose outcome is unknown "
								+ "could have taken it: a delivery burnt by a lost take (one whose reply was lost, "
								+ "sent again and answered with another batch; the takes answered after a cut after "
								+ "a write on their link then: %s):%n    %s",
						payload, again.messageId(), lost, again.deliveries(), again.token(),
						suspects.isEmpty() ? "none" : suspects, again));
			}
		});
	}

	/**
	 * The take calls a cut after a write may have met: on the cut link's instance, in
	 * flight when it was armed, or the first sent after.
	 */
	private List<QueueLedger.TakeCall> cutTakes(List<FaultRecord> cuts) {
		List<QueueLedger.TakeCall> met = new ArrayList<>();
		for (FaultRecord cut : cuts) {
			int instance = Math.floorMod(cut.event().target(), instances());
			List<QueueLedger.TakeCall> calls = this.ledger.calls.stream()
				.filter((call) -> call.instance() == instance && call.completed() >= cut.started())
				.sorted(Comparator.comparingLong(QueueLedger.TakeCall::invoked))
				.toList();
			calls.stream().filter((call) -> call.invoked() <= cut.started()).forEach(met::add);
			calls.stream().filter((call) -> call.invoked() > cut.started()).findFirst().ifPresent(met::add);
		}
		return met;
	}

	/**
	 * Whether Redis forgot, or its clock stepped forward (every deadline closer by the
	 * step), between a take and a second one. A step back moves deadlines away: a second
	 * take across it is judged as any other.
	 */
	private static boolean forgotBetween(List<FaultRecord> faults, long from, long to) {
		return faults.stream()
			.anyMatch(
					(fault) -> fault.event().fault().forgets() && !fault.stepsClockBack() && fault.overlaps(from, to));
	}

	/**
	 * What the checker reads beyond the history.
	 *
	 * @param takes the ledger's takes
	 * @param extensions its extensions
	 * @param settlements its settlements
	 * @param handlings its handlings
	 * @param deadLettered the payloads dead-lettered when the queue drained
	 * @param drainFailure why the queue did not drain, or {@code null}
	 * @param calls every take call the instances sent ({@code null} in recordings made
	 * before they were kept)
	 */
	record Evidence(List<QueueLedger.Take> takes, List<QueueLedger.Extension> extensions,
			List<QueueLedger.Settlement> settlements, List<QueueLedger.Handling> handlings, Set<String> deadLettered,
			@Nullable String drainFailure, @Nullable List<QueueLedger.TakeCall> calls) {
	}

	/**
	 * A deliberately broken build, to show that the checker catches it: the template
	 * bent, or one script sent with the lines that recognise a command delivered again
	 * taken out (issue 43), which only a cut after a write shows.
	 */
	enum Breakage {

		NONE,

		/** Every 20th {@code send} is dropped while it reports success. */
		DROP_SENDS,

		/**
		 * Every extension answers {@code true} without reaching Redis: heartbeats that
		 * keep nothing.
		 */
		FAKE_EXTENDS,

		/**
		 * Every fifth {@code send} enqueued twice, as a send sent again without a dedupe
		 * is (issue 43).
		 */
		SENT_TWICE,

		/**
		 * {@code queue_send} without its {@code SET NX} record: a replay pushes again.
		 */
		SEND_WITHOUT_RECORD(SEND, "redis.call('SET', KEYS[2], '1', 'NX', 'PX', ARGV[1])", "true"),

		/**
		 * {@code queue_claim} without its replay branch: a take sent again pops another
		 * batch, and the first one's deliveries are counted with no consumer.
		 */
		TAKE_WITHOUT_REPLAY(TAKE, "if read[2] then", "if false then"),

		/**
		 * {@code queue_delay} without its record: a replay schedules again (and, when
		 * collapsing, answers "collapsed").
		 */
		DELAY_WITHOUT_RECORD(DELAY, "redis.call('GET', KEYS[4])", "false"),

		/**
		 * {@code queue_requeue} without its record: a replay by id answers {@code false}
		 * for the dead letter the first copy moved.
		 */
		REQUEUE_WITHOUT_RECORD(REQUEUE, "redis.call('GET', KEYS[5])", "false"),

		/**
		 * {@code queue_stream_take} without its record: a take sent again reads new
		 * entries, and the first reply's are pending with a delivery counted and no
		 * consumer (issue 46).
		 */
		STREAM_TAKE_WITHOUT_REPLAY(STREAM_TAKE, "local record = keys_read[1]", "local record = false");

		private final @Nullable String script;

		private final String dedupe;

		private final String replacement;

		Breakage() {
			this(null, "", "");
		}

		Breakage(@Nullable String script, String dedupe, String replacement) {
			this.script = script;
			this.dedupe = dedupe;
			this.replacement = replacement;
		}

		/** The script this build sends without its dedupe, if any. */
		@Nullable String script() {
			return this.script;
		}

		String dedupe() {
			return this.dedupe;
		}

		String replacement() {
			return this.replacement;
		}

	}

}
