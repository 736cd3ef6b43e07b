package io.github.redkit.core;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

class RedisKeyspaceTests {

	private final RedisKeyspace keyspace = new RedisKeyspace("redkit");

	@Test
	void buildsPrefixedKeysWithOneHashTag() {
		String key = this.keyspace.key("ratelimit").part("api").tag("user-42").part("1s").build();
		assertThat(key).isEqualTo("redkit:ratelimit:api:{user-42}:1s");
	}

	@Test
	void safeCharactersAreKeptAsTheyAre() {
		assertThat(RedisKeyspace.escape("Alice.B_c-9@example.com")).isEqualTo("Alice.B_c-9@example.com");
	}

	@ParameterizedTest
	@ValueSource(strings = { "a:b", "{x}", "}", "{", "a b", "tab\tnew\nline", "\u0000", "ключ", "键", "emoji 😀", "%41",
			"#abc", "a}:{b", "\u001b[31m" })
	void hostilePartsCannotAddSeparatorsOrTags(String hostile) {
		String escaped = RedisKeyspace.escape(hostile);
		assertThat(escaped).matches("[A-Za-z0-9._@%-]+");
		String key = this.keyspace.key("lock").tag(hostile).build();
		assertThat(key).isEqualTo("redkit:lock:{" + escaped + "}");
		assertThat(SlotHash.getSlot(key)).isEqualTo(SlotHash.getSlot("{" + escaped + "}"));
	}

	@Test
	void differentInputsNeverShareAKey() {
		List<String> inputs = List.of("a:b", "a%3Ab", "a_b", "a b", "a+b", "A:B", "a:b ", "#", "%23", "%", "%25",
				"x".repeat(200), "x".repeat(201), "é", "e\u0301", "a}{b", "a{b}");
		Set<String> escaped = new HashSet<>();
		inputs.forEach((input) -> escaped.add(RedisKeyspace.escape(input)));
		assertThat(escaped).hasSameSizeAs(inputs);
	}

	@Test
	void loneSurrogatesNeverShareAKeyWithAQuestionMarkOrEachOther() {
		// a JSON "\ud800" reaches a key expression as a lone surrogate, which UTF-8
		// cannot encode (Java's encoder writes '?')
		String longTail = "x".repeat(RedisKeyspace.MAX_PART_LENGTH);
		List<String> inputs = List.of("?", "\uD800", "\uDC00", "\uDBFF", "\uD800\uDC00", "\uDC00\uD800", "a\uD800b",
				"a?b", "%ED%A0%80", longTail + "?", longTail + "\uD800", longTail + "\uDC00");
		Set<String> escaped = new HashSet<>();
		inputs.forEach((input) -> escaped.add(RedisKeyspace.escape(input)));
		assertThat(escaped).hasSameSizeAs(inputs);
		inputs.forEach((input) -> assertThat(RedisKeyspace.escape(input)).matches("[A-Za-z0-9._@%#_-]+"));
		// a valid pair is escaped as its UTF-8, as before
		assertThat(RedisKeyspace.escape("\uD83D\uDE00")).isEqualTo("%F0%9F%98%80");
		assertThat(RedisKeyspace.escape("?")).isEqualTo("%3F");
	}

	@Test
	void longPartsAreHashed() {
		String longPart = "x".repeat(10_000);
		String escaped = RedisKeyspace.escape(longPart);
		assertThat(escaped).startsWith("#").hasSize(44);
		assertThat(RedisKeyspace.escape(longPart)).isEqualTo(escaped);
		assertThat(RedisKeyspace.escape("ü".repeat(100))).startsWith("#");
		assertThat(RedisKeyspace.escape("x".repeat(RedisKeyspace.MAX_PART_LENGTH))).doesNotStartWith("#");
	}

	@Test
	void emptyOrNullPartsAreRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> RedisKeyspace.escape(""));
		assertThatIllegalArgumentException().isThrownBy(() -> RedisKeyspace.escape(null));
	}

	@Test
	void aKeyHasAtMostOneTag() {
		assertThatIllegalStateException().isThrownBy(() -> this.keyspace.key("x").tag("a").tag("b"));
	}

	@ParameterizedTest
	@ValueSource(strings = { "", " ", "app{1}", "my app", "a}", "tab\t" })
	void prefixesThatWouldActAsTagsOrBreakKeysAreRefused(String prefix) {
		assertThatIllegalArgumentException().isThrownBy(() -> new RedisKeyspace(prefix));
	}

}
