package io.github.redkit.idempotency.web;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import io.github.redkit.idempotency.internal.HttpIdempotency;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Scopes: what a kind may be, and that two scopes' operations never meet.
 */
class IdempotencyKeyScopeTests {

	private final HttpIdempotency http = new HttpIdempotency(List.of(),
			new HttpIdempotency.Limits("Idempotency-Key", Duration.ofHours(1), Duration.ofSeconds(30), 255, 1024, 1024),
			JsonMapper.builder().build());

	@Test
	void aMalformedOrReservedKindOrAnEmptyValueIsRefusedNamingTheParameter() {
		assertThatIllegalArgumentException().isThrownBy(() -> IdempotencyKeyScope.of("Tenant", "acme"))
			.withMessageContaining("kind");
		assertThatIllegalArgumentException().isThrownBy(() -> IdempotencyKeyScope.of("ten:ant", "acme"))
			.withMessageContaining("kind");
		assertThatIllegalArgumentException().isThrownBy(() -> IdempotencyKeyScope.of("shared", "acme"))
			.withMessageContaining("kind");
		assertThatIllegalArgumentException().isThrownBy(() -> IdempotencyKeyScope.of("tenant", ""))
			.withMessageContaining("value");
		assertThatIllegalArgumentException().isThrownBy(() -> IdempotencyKeyScopeResolver.tenantHeader(" "))
			.withMessageContaining("header");
	}

	@Test
	void twoScopesNeverNameTheSameOperation() {
		List<IdempotencyKeyScope> scopes = List.of(IdempotencyKeyScope.user("acme"),
				IdempotencyKeyScope.of("tenant", "acme"), IdempotencyKeyScope.user("tenant.4:acme"),
				IdempotencyKeyScope.user("4:acme"), IdempotencyKeyScope.user("a"), IdempotencyKeyScope.user("a:k"),
				IdempotencyKeyScope.of("tenant", "a:k"), IdempotencyKeyScope.shared(), IdempotencyKeyScope.user("-"));
		Set<String> operations = scopes.stream()
			.flatMap((scope) -> List.of("k", "k:k", "acme:k")
				.stream()
				.map((key) -> this.http.operation(scope.kind(), scope.value(), key)))
			.collect(Collectors.toSet());
		assertThat(operations).hasSize(scopes.size() * 3);
		// a user's keys keep the previous release's layout
		assertThat(this.http.operation("user", "alice", "k")).isEqualTo("http:5:alice:k");
		assertThat(this.http.operation("shared", "", "k")).isEqualTo("http:-:k");
	}

}
