package io.github.redkit.actuate;

import java.security.Principal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.github.redkit.actuate.internal.ActivityEndpointSection;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.endpoint.Access;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The {@code redkit} endpoint with a section it does not know: what a new capability gets
 * by contributing a {@link RedkitEndpointSection} bean, without a change to the endpoint.
 */
class RedkitEndpointSectionTests {

	private final Notes notes = new Notes();

	private final RedkitEndpoint endpoint = new RedkitEndpoint(Access.UNRESTRICTED,
			List.of(this.notes, new ActivityEndpointSection(List.of(), ActivityEndpointSection.Counts.NONE)));

	@Test
	void summaryListsTheSectionItsCapabilityAndWhatItAdds() {
		Map<String, Object> summary = this.endpoint.summary();
		assertThat(summary.get("capabilities")).isEqualTo(List.of("notebook"));
		assertThat(summary.get("access")).isEqualTo("unrestricted");
		assertThat(summary.get("sections")).isEqualTo(List.of("notes", "activity"));
		assertThat(summary.get("notebooks")).isEqualTo(List.of("inbox"));
	}

	@Test
	void everyOperationReachesTheSectionOfItsName() {
		assertThat(this.endpoint.section("notes", "7", 2)).isEqualTo("page from 7, 2 at most");
		assertThat(this.endpoint.item("notes", "inbox")).isEqualTo("[inbox] null null");
		assertThat(this.endpoint.detail("notes", "inbox", new String[] { "a", "b" }, 1, 3))
			.isEqualTo("[inbox, a, b] 1 3");
		assertThat(this.endpoint.replay("notes", "inbox", "archive", "n-1", principal()))
			.isEqualTo("[inbox, archive] n-1 by 'ops'");
		assertThat(this.endpoint.delete("notes", new String[] { "inbox", "n/1" }, null))
			.isEqualTo("[inbox, n/1] by an anonymous operator");
	}

	@Test
	void anUnknownSectionOrAnEmptyPathIsNotFound() {
		assertThat(this.endpoint.section("missing", null, null)).isNull();
		assertThat(this.endpoint.item("missing", "x")).isNull();
		assertThat(this.endpoint.detail("notes", "inbox", new String[0], null, null)).isNull();
		assertThat(this.endpoint.delete("notes", new String[0], null)).isNull();
		assertThat(this.notes.calls).isEmpty();
	}

	@Test
	void activityKeepsItsShapeWithoutMicrometer() {
		RedkitEndpointActivity declared = new RedkitEndpointActivity() {

			@Override
			public String name() {
				return "notes";
			}

			@Override
			public String nameTag() {
				return "notebook";
			}

			@Override
			public List<String> meters() {
				return List.of("redkit.notes.written");
			}

		};
		Map<String, Object> activity = new ActivityEndpointSection(List.of(declared),
				ActivityEndpointSection.Counts.NONE)
			.read(null, null);
		assertThat(activity).containsOnlyKeys("at", "notes").containsEntry("notes", Map.of());
	}

	@Test
	void twoSectionsOfOneNameAreRefused() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new RedkitEndpoint(Access.READ_ONLY, List.of(new Notes(), new Notes())))
			.withMessageContaining("'notes'");
	}

	private static Principal principal() {
		return () -> "ops";
	}

	/**
	 * A section of a capability the endpoint has never heard of.
	 */
	static final class Notes implements RedkitEndpointSection {

		final List<String> calls = new ArrayList<>();

		@Override
		public String name() {
			return "notes";
		}

		@Override
		public String capability() {
			return "notebook";
		}

		@Override
		public Map<String, Object> summary() {
			return Map.of("notebooks", List.of("inbox"));
		}

		@Override
		public Object read(@Nullable String cursor, @Nullable Integer count) {
			return call("page from " + cursor + ", " + count + " at most");
		}

		@Override
		public Object read(List<String> path, @Nullable Integer offset, @Nullable Integer count) {
			return call(path + " " + offset + " " + count);
		}

		@Override
		public Object write(List<String> path, @Nullable String id, String operator) {
			return call(path + " " + id + " by " + operator);
		}

		@Override
		public Object delete(List<String> path, String operator) {
			return call(path + " by " + operator);
		}

		private String call(String call) {
			this.calls.add(call);
			return call;
		}

	}

}
