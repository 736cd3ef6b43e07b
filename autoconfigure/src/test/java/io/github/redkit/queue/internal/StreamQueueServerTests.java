package io.github.redkit.queue.internal;

import java.util.Properties;
import java.util.concurrent.CompletionException;

import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.queue.QueueStore;
import io.github.redkit.testsupport.Exercises;
import io.github.redkit.testsupport.RedisTopologies;
import io.github.redkit.testsupport.RedisTopology;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;

import org.springframework.dao.InvalidDataAccessApiUsageException;
import org.springframework.data.redis.RedisSystemException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * A stream queue on a server older than Redis 6.2 (no {@code XAUTOCLAIM}) is refused at
 * start-up, naming the property and the version. The servers the tests start are all 6.2
 * or later, so an older one is judged through the {@code INFO server} fields the check
 * reads.
 */
@ParameterizedClass
@RedisTopologies(exercises = Exercises.CONNECTION)
class StreamQueueServerTests {

	@Parameter
	RedisTopology topology;

	@Test
	void aServerOlderThan62IsRefusedNamingThePropertyAndTheVersion() {
		assertThatIllegalStateException().isThrownBy(() -> StreamQueueStore.requireServer("emails", redis("6.0.16")))
			.withMessageContaining("redkit.queue.queues.emails.store=stream")
			.withMessageContaining("Redis 6.0.16")
			.withMessageContaining("6.2");
		assertThatIllegalStateException().isThrownBy(() -> StreamQueueStore.requireServer("emails", redis("5.0.14")));
	}

	@Test
	void theDefaultStoreIsRefusedOnAnOlderServerNamingItsProperty() {
		assertThatIllegalStateException()
			.isThrownBy(() -> StreamQueueStore.requireServerFor("redkit.queue.defaults.store=stream", redis("6.0.16")))
			.withMessageStartingWith("redkit.queue.defaults.store=stream needs Redis 6.2 or later")
			.withMessageContaining("Redis 6.0.16");
	}

	@Test
	void theFirstTakeOnAServerOlderThan62NamesTheProperty() {
		// before Redis 7.0 a script's unknown command is reported without its name
		Throwable failure = StreamQueueStore.olderServer("emails",
				new CompletionException(new RedisSystemException("Error in execution",
						new IllegalStateException("ERR Error running script (call to f_3b2c): @user_script:98:"
								+ " @user_script: 98: Unknown Redis command called from Lua script"))));
		assertThat(failure).isInstanceOf(InvalidDataAccessApiUsageException.class)
			.hasMessageContaining("redkit.queue.queues.emails.store=stream")
			// the store may have come from the defaults: the first take cannot tell which
			.hasMessageContaining("redkit.queue.defaults.store=stream")
			.hasMessageContaining("Redis 6.2");
		Throwable other = new RedisSystemException("ERR something else", null);
		assertThat(StreamQueueStore.olderServer("emails", other)).isSameAs(other);
	}

	@Test
	void redis62AndLaterAndValkeyAreTaken() {
		assertThatNoException().isThrownBy(() -> StreamQueueStore.requireServer("emails", redis("6.2.0")));
		assertThatNoException().isThrownBy(() -> StreamQueueStore.requireServer("emails", redis("8.2.1")));
		Properties valkey = redis("7.2.4");
		valkey.setProperty("valkey_version", "8.1.1");
		assertThatNoException().isThrownBy(() -> StreamQueueStore.requireServer("emails", valkey));
	}

	@Test
	void aClusterWithOneOlderNodeIsRefused() {
		Properties cluster = new Properties();
		cluster.setProperty("127.0.0.1:7000.redis_version", "7.0.15");
		cluster.setProperty("127.0.0.1:7001.redis_version", "6.0.9");
		assertThatIllegalStateException().isThrownBy(() -> StreamQueueStore.requireServer("emails", cluster))
			.withMessageContaining("Redis 6.0.9");
	}

	@Test
	void theServerOfTheTestsIsReadAndTaken() {
		QueueTestSupport support = new QueueTestSupport(this.topology, QueueStore.STREAM);
		String queue = support.queue();
		assertThatNoException().isThrownBy(() -> support.template.prepareStreamQueue(queue));
		StreamQueueStore store = new StreamQueueStore(new RedisScriptRunner(this.topology.connectionFactory()),
				"120000", QueueTestSupport.JSON);
		assertThatNoException().isThrownBy(() -> store.requireServer(queue));
	}

	private static Properties redis(String version) {
		Properties info = new Properties();
		info.setProperty("redis_version", version);
		return info;
	}

}
