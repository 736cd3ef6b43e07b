package io.github.redkit.idempotency.actuate;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.redkit.actuate.EndpointSettings;
import io.github.redkit.actuate.RedkitEndpointSection;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.internal.LuaScript;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.idempotency.internal.RedisIdempotentSteps;
import org.jspecify.annotations.Nullable;

import org.springframework.core.Ordered;

/**
 * The {@code steps} section of the {@code redkit} endpoint: at {@code steps/{operation}},
 * the recorded steps of one operation, as the idempotency store holds them
 * ({@code completed}, {@code claimed} while a lease runs, {@code expired} when a claim's
 * lease ran out), read in one script. A claim's token is never read out; a step's result
 * only with {@code redkit.endpoint.show-payloads=true}.
 */
public final class StepEndpointSection implements RedkitEndpointSection, Ordered {

	/** After budgets. */
	public static final int ORDER = 500;

	private static final LuaScript<List> READ = LuaScript.load("idempotency_steps_read", List.class);

	private final RedisScriptRunner runner;

	private final RedisKeyspace keyspace;

	private final EndpointSettings settings;

	/**
	 * Creates the section.
	 * @param runner runs the read script
	 * @param keyspace the keyspace
	 * @param settings the endpoint's settings
	 */
	public StepEndpointSection(RedisScriptRunner runner, RedisKeyspace keyspace, EndpointSettings settings) {
		this.runner = runner;
		this.keyspace = keyspace;
		this.settings = settings;
	}

	@Override
	public String name() {
		return "steps";
	}

	@Override
	public String capability() {
		return "idempotency";
	}

	@Override
	public int getOrder() {
		return ORDER;
	}

	/**
	 * {@code steps/{operation}}: the recorded steps of an operation.
	 */
	@Override
	public @Nullable Object read(List<String> path, @Nullable Integer offset, @Nullable Integer count) {
		return (path.size() == 1) ? steps(path.get(0)) : null;
	}

	/**
	 * The recorded steps of an operation, in the order the store returns them.
	 * @param operation the operation, as the application names it
	 * @return the operation and its steps (none when nothing is recorded)
	 */
	public Map<String, Object> steps(String operation) {
		List<?> reply = this.runner.execute(READ, RedisIdempotentSteps.keys(this.keyspace, operation),
				this.settings.showPayloads() ? "1" : "");
		long now = Long.parseLong((String) reply.get(0));
		long ttl = ((Number) reply.get(1)).longValue();
		List<?> flat = (List<?>) reply.get(2);
		List<Map<String, Object>> steps = new ArrayList<>();
		for (int i = 0; i + 3 < flat.size(); i += 4) {
			Map<String, Object> step = new LinkedHashMap<>();
			step.put("step", flat.get(i));
			step.put("state", flat.get(i + 1));
			String deadline = (String) flat.get(i + 2);
			if ("claimed".equals(flat.get(i + 1)) && !deadline.isEmpty()) {
				step.put("leaseRemaining", Duration.ofMillis(Long.parseLong(deadline) - now).toString());
			}
			if (this.settings.showPayloads() && flat.get(i + 3) instanceof String result) {
				step.put("result", result);
			}
			steps.add(step);
		}
		Map<String, Object> answer = new LinkedHashMap<>();
		answer.put("operation", operation);
		answer.put("steps", steps);
		if (ttl > 0) {
			answer.put("expiresIn", Duration.ofMillis(ttl).toString());
		}
		return answer;
	}

}
