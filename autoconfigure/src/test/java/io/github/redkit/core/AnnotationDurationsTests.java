package io.github.redkit.core;

import java.time.Duration;

import io.github.redkit.core.internal.AnnotationDurations;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class AnnotationDurationsTests {

	@Test
	void parsesSpringBootDurations() {
		assertThat(AnnotationDurations.parse("500ms", null, "x")).isEqualTo(Duration.ofMillis(500));
		assertThat(AnnotationDurations.parse("48h", null, "x")).isEqualTo(Duration.ofHours(48));
		assertThat(AnnotationDurations.parse("PT10S", null, "x")).isEqualTo(Duration.ofSeconds(10));
	}

	@Test
	void emptyMeansTheDefault() {
		assertThat(AnnotationDurations.parse("", Duration.ofSeconds(3), "x")).isEqualTo(Duration.ofSeconds(3));
	}

	@Test
	void invalidValuesNameTheAttribute() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> AnnotationDurations.parse("ten seconds", null, "@DistributedLock.leaseTime"))
			.withMessageContaining("@DistributedLock.leaseTime")
			.withMessageContaining("ten seconds");
		assertThatIllegalArgumentException().isThrownBy(() -> AnnotationDurations.parse("-1s", null, "attr"))
			.withMessageContaining("attr");
	}

}
