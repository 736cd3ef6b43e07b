package io.github.redkit.sample;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.IntStream;

import io.github.redkit.sample.analytics.EventLog;
import io.github.redkit.sample.analytics.VisitsPerMinute;
import io.github.redkit.sample.profile.AuthorProfiles;
import io.github.redkit.sample.profile.Profile;
import io.github.redkit.sample.retwis.BloomFilter;
import io.github.redkit.sample.retwis.Keys;
import io.github.redkit.sample.retwis.TakenNames;
import io.github.redkit.sample.retwis.Users;
import io.github.redkit.testsupport.CommandLog;
import io.github.redkit.test.boot.RedkitTestRedis;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.domain.Range;
import org.springframework.data.redis.connection.BitFieldSubCommands;
import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.ScanOptions;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The seed patterns the sample shows beside the starter: time series in a lexicographic
 * sorted set and in a bitfield, a Bloom filter of taken names, and profiles read with one
 * {@code MGET}.
 */
@SampleApplicationTest
class SamplePatternsTests {

	private SampleClient app;

	@BeforeEach
	void wrap(@Autowired ConfigurableApplicationContext context) {
		this.app = new SampleClient(context);
	}

	@Test
	void visitsPerMinuteLiveInABitfieldThatSaturatesAndReadsZeroWhereUnset() throws Exception {
		// a day of its own, far from today's traffic
		LocalDate day = LocalDate.of(2001, 1, 1).plusDays((long) (Math.random() * 9000));
		Instant midnight = day.atStartOfDay(ZoneOffset.UTC).toInstant();
		VisitsPerMinute visits = app.bean(VisitsPerMinute.class);
		visits.record(midnight);
		for (int i = 0; i < 3; i++) {
			visits.record(midnight.plusSeconds(59 * 60 + i));
		}
		long last = 0;
		for (int i = 0; i < 300; i++) {
			last = visits.record(midnight.plusSeconds(1439 * 60 + 59));
		}
		assertThat(last).as("OVERFLOW SAT stops at 255 instead of wrapping").isEqualTo(255);

		JsonNode all = SampleClient.json(app.get("/api/analytics/visits?day=" + day.toString().replace("-", "")));
		assertThat(all.get("perMinute").size()).isEqualTo(1440);
		assertThat(all.get("perMinute").get(0).asInt()).isEqualTo(1);
		assertThat(all.get("perMinute").get(1).asInt()).isZero();
		assertThat(all.get("perMinute").get(59).asInt()).isEqualTo(3);
		assertThat(all.get("perMinute").get(1439).asInt()).isEqualTo(255);
		assertThat(all.get("total").asInt()).isEqualTo(1 + 3 + 255);
		JsonNode unset = SampleClient
			.json(app.get("/api/analytics/visits?day=" + day.toString().replace("-", "") + "&from=30&to=50"));
		assertThat(unset.get("perMinute").size()).isEqualTo(21);
		assertThat(unset.get("total").asInt()).isZero();

		// the same slots through BITFIELD GET; one byte per minute, with a TTL
		StringRedisTemplate redis = app.redis();
		String key = "analytics:visits:" + day.toString().replace("-", "");
		assertThat(redis.opsForValue()
			.bitField(key,
					BitFieldSubCommands.create()
						.get(BitFieldSubCommands.BitFieldType.unsigned(8))
						.valueAt(BitFieldSubCommands.Offset.offset(59).multipliedByTypeLength())
						.get(BitFieldSubCommands.BitFieldType.unsigned(8))
						.valueAt(BitFieldSubCommands.Offset.offset(700).multipliedByTypeLength())))
			.containsExactly(3L, 0L);
		assertThat(redis.opsForValue().size(key)).isEqualTo(1440);
		assertThat(redis.getExpire(key)).isBetween(1L, Duration.ofDays(8).toSeconds());

		// real requests count in today's key
		assertThat(SampleClient.json(app.get("/api/analytics/visits")).get("total").asInt()).isPositive();
		assertThat(app.get("/api/analytics/visits?day=2024-01-01").statusCode()).isEqualTo(400);
		assertThat(app.get("/api/analytics/visits?from=10&to=1440").statusCode()).isEqualTo(400);
	}

	@Test
	void eventLogInALexSortedSetIncludesTheLastMillisecondOfARange() throws Exception {
		EventLog log = app.bean(EventLog.class);
		long t = System.currentTimeMillis() - Duration.ofMinutes(10).toMillis();
		String id = UUID.randomUUID().toString().substring(0, 8);
		log.append(t - 1, "test:" + id + ":before");
		log.append(t, "test:" + id + ":at");
		log.append(t + 1, "test:" + id + ":after");

		assertThat(log.between(t, t, 10)).containsExactly(new EventLog.Event(t, "test:" + id + ":at"));
		assertThat(log.between(t - 1, t, 10)).extracting(EventLog.Event::event)
			.containsExactly("test:" + id + ":before", "test:" + id + ":at");
		assertThat(log.count(t - 1, t + 1)).isEqualTo(3);
		// the seed's pitfall: an inclusive bound at the last millisecond misses its
		// events,
		// since "<t>:event" sorts after "<t>"
		String padded = String.format("%013d", t);
		assertThat(app.redis().opsForZSet().rangeByLex("analytics:events", Range.closed(padded, padded))).isEmpty();
		assertThat(app.redis().getExpire("analytics:events")).isBetween(1L, Duration.ofDays(2).toSeconds());

		JsonNode events = SampleClient.json(app.get("/api/analytics/events?from=" + (t - 1) + "&to=" + t));
		assertThat(events.get("count").asLong()).isEqualTo(2);
		assertThat(events.get("events").toString()).contains(id + ":before")
			.contains(id + ":at")
			.doesNotContain(id + ":after");

		// sign-ups and posts are logged as they happen
		String name = SampleClient.uniqueName("logged");
		String auth = app.register(name);
		app.post("/api/posts", "{\"text\":\"logged post\"}", "Authorization", auth);
		String recent = app.get("/api/analytics/events").body();
		assertThat(recent).contains(":" + name + "\"").contains("\"signup:").contains("\"post:");
		assertThat(app.get("/api/analytics/events?from=5&to=4").statusCode()).isEqualTo(400);
	}

	@Test
	void bloomFilterHasNoFalseNegativesAndTheFalsePositiveRateItWasSizedFor() {
		long n = 10_000;
		double p = 0.01;
		BloomFilter filter = new BloomFilter(app.redis(), "test:bloom:" + UUID.randomUUID(), n, p,
				Duration.ofMinutes(5));
		assertThat(filter.bits()).isEqualTo(95_851);
		assertThat(filter.hashes()).isEqualTo(7);
		assertThat(filter.lookup("anyone")).isEqualTo(BloomFilter.Lookup.NOT_BUILT);
		List<String> added = new ArrayList<>();
		for (int i = 0; i < n; i++) {
			added.add("user_" + i + "_" + UUID.randomUUID());
		}
		filter.build(added.subList(0, 5_000).stream());
		added.subList(5_000, added.size()).forEach(filter::add);

		// the shared connection pipelines the lookups of parallel threads
		assertThat(added.parallelStream().filter((name) -> filter.lookup(name) != BloomFilter.Lookup.MAYBE_PRESENT))
			.as("false negatives")
			.isEmpty();
		long falsePositives = IntStream.range(0, 10_000)
			.parallel()
			.filter((i) -> filter.lookup("other_" + i + "_" + UUID.randomUUID()) != BloomFilter.Lookup.ABSENT)
			.count();
		// about 100 expected; 2p is 10 standard deviations away
		assertThat(falsePositives / 10_000.0).isBetween(p / 4, 2 * p);
		assertThat(app.redis().getExpire(filter.key())).isBetween(1L, 300L);
	}

	@Test
	void signUpAsksTheBloomFilterBeforeTheUsersHash() throws Exception {
		TakenNames takenNames = app.bean(TakenNames.class);
		Users users = app.bean(Users.class);
		StringRedisTemplate redis = app.redis();
		app.register(SampleClient.uniqueName("early"));
		// every name of the users hash is in the filter, whatever wrote it
		for (Object name : redis.opsForHash().keys(Keys.USERS)) {
			assertThat(takenNames.maybeTaken((String) name)).as((String) name).isTrue();
		}

		String fresh = SampleClient.uniqueName("fresh");
		while (takenNames.maybeTaken(fresh)) {
			fresh = SampleClient.uniqueName("fresh"); // a false positive: take another
		}
		String free = fresh;
		CommandLog surelyFree = CommandLog.record(app.bean(RedkitTestRedis.class).server(), () -> users.isTaken(free));
		assertThat(surelyFree.roundTrips((command) -> command.startsWith("\"hexists\""))).isZero();
		assertThat(SampleClient.json(app.get("/api/names/" + free)).get("available").asBoolean()).isTrue();

		app.register(free);
		CommandLog taken = CommandLog.record(app.bean(RedkitTestRedis.class).server(), () -> users.isTaken(free));
		assertThat(taken.roundTrips((command) -> command.startsWith("\"hexists\""))).as(taken.toString()).isOne();
		assertThat(SampleClient.json(app.get("/api/names/" + free)).get("available").asBoolean()).isFalse();
		HttpResponse<String> again = app.post("/api/register",
				"{\"name\":\"" + free + "\",\"password\":\"long-enough\"}");
		assertThat(again.statusCode()).isEqualTo(409);
		assertThat(app.get("/api/names/a:b").statusCode()).isEqualTo(400);

		// a lost filter is rebuilt from the users hash; meanwhile names count as "maybe
		// taken"
		String filterKey;
		try (Cursor<String> found = redis
			.scan(ScanOptions.scanOptions().match("{retwis:names}:*").count(100).build())) {
			filterKey = found.next();
		}
		redis.delete(filterKey);
		assertThat(takenNames.maybeTaken(free)).isTrue();
		assertThat(redis.getExpire(filterKey)).isPositive();
		for (Object name : redis.opsForHash().keys(Keys.USERS)) {
			assertThat(takenNames.maybeTaken((String) name)).as((String) name).isTrue();
		}
	}

	@Test
	void theAuthorsOfATimelinePageComeInOneMget() throws Exception {
		List<String> names = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			String name = SampleClient.uniqueName("author" + i);
			String auth = app.register(name);
			app.post("/api/posts", "{\"text\":\"by " + name + "\"}", "Authorization", auth);
			names.add(name);
		}
		AuthorProfiles authors = app.bean(AuthorProfiles.class);
		// the first read computes and caches the missing profiles
		assertThat(authors.of(names).keySet()).containsExactlyElementsOf(names);
		List<String> repeated = List.of(names.get(0), names.get(1), names.get(0), names.get(2));
		Map<String, Profile>[] read = new Map[1];
		CommandLog log = CommandLog.record(app.bean(RedkitTestRedis.class).server(),
				() -> read[0] = authors.of(repeated));
		assertThat(read[0].keySet()).containsExactlyElementsOf(names);
		assertThat(read[0].values()).allSatisfy((profile) -> assertThat(profile.posts()).isEqualTo(1));
		// one round trip for the three profiles, not one GET each
		assertThat(log.roundTrips((command) -> command.contains("profiles::"))).as(log.toString()).isOne();
		assertThat(log.roundTrips((command) -> command.startsWith("\"mget\"")
				&& names.stream().allMatch((name) -> command.contains("\"profiles::" + name + "\""))))
			.as(log.toString())
			.isOne();

		JsonNode page = SampleClient.json(app.get("/api/timeline/global/authors?size=3"));
		for (String name : names) {
			assertThat(page.get(name).get("name").asString()).isEqualTo(name);
		}
	}

}
