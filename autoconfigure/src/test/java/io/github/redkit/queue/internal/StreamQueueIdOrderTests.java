package io.github.redkit.queue.internal;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The order in which a stream queue sends the takes it acknowledges: the take script
 * looks a batch up over its first and last id, so the client must order the ids as Redis
 * does, past 2^53 and 2^63 too.
 */
class StreamQueueIdOrderTests {

	@Test
	void idsAreOrderedAsRedisOrdersThemPastEveryNumberLuaOrALongHoldsExactly() {
		List<String> ids = new ArrayList<>(List.of("18446744073709551615-0", "10-2", "9-10", "9223372036854775808-1",
				"9007199254740993-0", "9007199254740992-5", "10-10", "9-9"));
		ids.sort(StreamQueueStore::compareIds);
		assertThat(ids).containsExactly("9-9", "9-10", "10-2", "10-10", "9007199254740992-5", "9007199254740993-0",
				"9223372036854775808-1", "18446744073709551615-0");
	}

	@Test
	void whatIsNoEntryIdIsOrderedAsText() {
		assertThat(StreamQueueStore.compareIds("b", "a")).isPositive();
		assertThat(StreamQueueStore.compareIds("x-1", "1-1")).isPositive();
	}

}
