package io.github.redkit.queue.internal;

import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The stored form of a message, with and without headers.
 */
class EnvelopeTests {

	@Test
	void anElementWrittenWithoutHeadersReadsAsBefore() {
		Envelope envelope = Envelope.parse("lx1.abc|2|{\"to\":\"a|b;c\"}");
		assertThat(envelope.id()).isEqualTo("lx1.abc");
		assertThat(envelope.deliveries()).isEqualTo(2);
		assertThat(envelope.json()).isEqualTo("{\"to\":\"a|b;c\"}");
		assertThat(envelope.headers()).isEmpty();
	}

	@Test
	void headersRideInTheFirstFieldAndSurviveAnyCharacter() {
		Map<String, String> headers = Map.of("traceparent", "00-abc-def-01", "odd", "a|b;c&d=e");
		Envelope created = Envelope.create("{\"n\":1}", headers);
		assertThat(created.raw()).endsWith("|0|{\"n\":1}");
		assertThat(created.raw().split("\\|")).hasSize(3);
		Envelope parsed = Envelope.parse(created.raw().replace("|0|", "|4|"));
		assertThat(parsed.id()).isEqualTo(created.id()).doesNotContain(";");
		assertThat(parsed.deliveries()).isEqualTo(4);
		assertThat(parsed.json()).isEqualTo("{\"n\":1}");
		assertThat(parsed.headers()).isEqualTo(headers);
		assertThat(parsed.sentAt()).isEqualTo(created.sentAt());
	}

	@Test
	void noHeadersWriteTheFormerFormat() {
		Envelope created = Envelope.create("{}", Map.of());
		assertThat(created.raw()).isEqualTo(created.id() + "|0|{}");
	}

}
