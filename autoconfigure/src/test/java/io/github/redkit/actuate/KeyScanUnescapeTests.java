package io.github.redkit.actuate;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import io.github.redkit.core.RedisKeyspace;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The endpoint shows a stored key part as the application passed it: the exact inverse of
 * {@link RedisKeyspace#escape(String)}, a lone UTF-16 surrogate (escaped as its WTF-8
 * bytes) included, so that two different keys never show alike and a shown control group
 * reads its own state back. A part escaping cannot have written is shown as it is stored.
 */
class KeyScanUnescapeTests {

	private static final List<String> PARTS = List.of("order:1", "tenant/7/order", "?", "%", "#", "%3F", "%ED%A0%80",
			"é", "\uFFFD", "\uD83D\uDE00", "\uD800", "\uDC00", "\uDBFF", "\uDFFF", "a\uD800b", "a\uDC00b",
			"\uDC00\uD800", "\uD800\uD800", "a?b", "x".repeat(40) + "\uD800");

	@Test
	void everyEscapedPartIsShownAsTheApplicationPassedIt() {
		assertThat(PARTS).allSatisfy(
				(part) -> assertThat(KeyScan.unescape(RedisKeyspace.escape(part))).as(RedisKeyspace.escape(part))
					.isEqualTo(part));
	}

	@Test
	void twoDifferentPartsNeverShowAlike() {
		assertThat(PARTS.stream().map((part) -> KeyScan.unescape(RedisKeyspace.escape(part))).distinct())
			.hasSameSizeAs(PARTS);
	}

	@Test
	void aLoneSurrogateIsWrittenInJsonAsItsEscapeAndReadBackWhole() {
		JsonMapper json = JsonMapper.builder().build();
		String written = new String(
				json.writeValueAsBytes(Map.of("key", KeyScan.unescape(RedisKeyspace.escape("a\uD800b")))),
				StandardCharsets.UTF_8);
		assertThat(written).isEqualToIgnoringCase("{\"key\":\"a\\uD800b\"}");
		assertThat(json.readValue(written, Map.class)).containsEntry("key", "a\uD800b");
	}

	@Test
	void aPartEscapingCannotHaveWrittenIsShownAsStored() {
		// bytes that are no UTF-8 (nor a lone surrogate's three), a '%' without two hex
		// digits, lower-case hex, an over-long form, a pair written as two surrogates,
		// a safe character escaped, a character escaping keeps
		List<String> foreign = List.of("%FF", "a%zz", "%E", "%C3", "%ed%a0%80", "%C0%80", "%ED%A0%BD%ED%B8%80", "%61",
				"a%3Fé");
		assertThat(foreign).allSatisfy((part) -> assertThat(KeyScan.unescape(part)).isEqualTo(part));
	}

}
