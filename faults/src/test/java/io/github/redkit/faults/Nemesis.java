package io.github.redkit.faults;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;

import io.github.redkit.testsupport.RedisNode;
import io.github.redkit.testsupport.RespClient;
import io.github.redkit.testsupport.TcpProxy;
import org.jspecify.annotations.Nullable;

/**
 * Injects a schedule's faults, one after another, into the real Redis servers of a rig
 * and the links to them, and records when each began and healed.
 */
final class Nemesis implements Runnable {

	private final Schedule schedule;

	private final Rig rig;

	private final History history;

	private final Function<RespClient, @Nullable Object> beforeRestartEmpty;

	private final Map<RedisNode, Long> clockOffsets = new HashMap<>();

	Nemesis(Schedule schedule, Rig rig, History history) {
		this(schedule, rig, history, (redis) -> null);
	}

	/**
	 * A nemesis that reads, just before each restart empty, what the scenario needs to
	 * know of what Redis held.
	 * @param schedule the faults
	 * @param rig the servers and links
	 * @param history where the faults are recorded
	 * @param beforeRestartEmpty the read (see {@link Scenario#beforeRestartEmpty})
	 */
	Nemesis(Schedule schedule, Rig rig, History history, Function<RespClient, @Nullable Object> beforeRestartEmpty) {
		this.schedule = schedule;
		this.rig = rig;
		this.history = history;
		this.beforeRestartEmpty = beforeRestartEmpty;
	}

	@Override
	public void run() {
		long origin = this.history.now();
		for (FaultEvent event : this.schedule.events()) {
			sleepUntil(origin + event.at() * 1_000_000);
			if (Thread.currentThread().isInterrupted()) {
				return;
			}
			long started = this.history.now();
			Object held = inject(event);
			this.history.fault(new FaultRecord(event, started, this.history.now(), held));
		}
	}

	/**
	 * Injects one fault.
	 * @return what Redis held just before a restart empty, or {@code null}
	 */
	private @Nullable Object inject(FaultEvent event) {
		Duration lasting = Duration.ofMillis(event.millis());
		RedisNode redis = this.rig.node(event.target());
		@Nullable Object held = null;
		switch (event.fault()) {
			case PAUSE -> {
				redis.pause();
				sleep(lasting);
				redis.resume();
			}
			case CLIENT_PAUSE -> {
				try (RespClient client = redis.client()) {
					client.call("CLIENT", "PAUSE", String.valueOf(event.millis()), "ALL");
				}
				sleep(lasting);
			}
			case RESTART_EMPTY -> {
				held = readBeforeRestartEmpty(redis);
				redis.restartEmpty();
			}
			case RESTART_FROM_SNAPSHOT -> {
				redis.snapshot();
				sleep(lasting);
				redis.restartFromSnapshot();
			}
			case LATENCY -> {
				TcpProxy proxy = this.rig.linkAt(event.target());
				proxy.delay(Duration.ofMillis(event.strength()));
				sleep(lasting);
				proxy.heal();
			}
			case PARTITION -> {
				TcpProxy proxy = this.rig.linkAt(event.target());
				proxy.partition();
				sleep(lasting);
				proxy.heal();
			}
			case CUT -> this.rig.linkAt(event.target()).cut();
			case CUT_AFTER_WRITE -> this.rig.cutAfterNextWrite(event.target());
			case SCRIPT_FLUSH -> {
				try (RespClient client = redis.client()) {
					client.call("SCRIPT", "FLUSH");
				}
			}
			case FAILOVER_BEHIND -> {
				redis.cutReplica();
				sleep(lasting);
				redis.promoteReplica();
				// clients learn the new master before the old one is back as a replica
				this.rig.retarget(redis);
				redis.restoreReplica();
			}
			case CLOCK_JUMP -> {
				long offset = this.clockOffsets.merge(redis, event.strength(), Long::sum);
				redis.shiftClock(Duration.ofMillis(offset));
			}
		}
		return held;
	}

	/**
	 * The scenario's read of Redis, the moment before it is killed; {@code null} (a
	 * checker then cannot tell what was lost) when Redis did not answer it.
	 */
	private @Nullable Object readBeforeRestartEmpty(RedisNode redis) {
		try (RespClient client = redis.client()) {
			return this.beforeRestartEmpty.apply(client);
		}
		catch (RuntimeException ex) {
			return null;
		}
	}

	/**
	 * Heals whatever is still broken: the end of a run, or an interrupted nemesis.
	 */
	void healAll() {
		this.rig.nodes().forEach(RedisNode::resume);
		this.rig.links().forEach(TcpProxy::heal);
	}

	private static void sleep(Duration duration) {
		try {
			Thread.sleep(duration.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private void sleepUntil(long nanos) {
		long wait = nanos - this.history.now();
		if (wait > 0) {
			sleep(Duration.ofNanos(wait));
		}
	}

}
