package io.github.redkit.docs;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.github.redkit.concurrency.ConcurrencyLimitExceededException;
import io.github.redkit.concurrency.ConcurrencyLimited;
import io.github.redkit.concurrency.ConcurrencyLimiter;
import io.github.redkit.concurrency.ConcurrencyPermit;
import io.github.redkit.test.boot.RedkitTest;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.stereotype.Service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The snippets of {@code docs/concurrency-limits.md}: its configuration, the annotated
 * methods and the bean.
 */
@SpringBootTest(classes = ConcurrencyLimitsDocsTests.Application.class,
		webEnvironment = SpringBootTest.WebEnvironment.NONE,
		properties = "spring.config.location=classpath:docs/concurrency-limits.yml")
@RedkitTest
class ConcurrencyLimitsDocsTests {

	@Autowired
	Exports exports;

	@Autowired
	ConcurrencyLimiter concurrencyLimiter;

	@Test
	void theFifthExportOfATenantWaitsForAPermit() {
		List<ConcurrencyPermit> held = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			held.add(this.concurrencyLimiter.tryAcquire("exports", "acme").orElseThrow());
		}
		assertThatExceptionOfType(ConcurrencyLimitExceededException.class)
			.isThrownBy(() -> this.exports.export("acme"));
		assertThat(export("acme")).isEqualTo("busy");
		held.forEach(ConcurrencyPermit::close);
		assertThat(this.exports.export("acme")).isEqualTo(new Report("acme"));
		assertThat(export("acme")).isEqualTo("exported with 1 in flight");
	}

	@Test
	void anInlineLimitHoldsTwoPermitsPerUser() {
		assertThat(this.exports.render("ann")).isEqualTo(new byte[] { 1 });
	}

	String export(String tenantId) {
		// tag::bean[]
		// empty = at the limit
		Optional<ConcurrencyPermit> permit = concurrencyLimiter.tryAcquire("exports", tenantId);
		if (permit.isEmpty()) {
			return "busy";
		}
		try (ConcurrencyPermit held = permit.get()) { // close() gives back, once
			return "exported with " + held.inFlight() + " in flight";
		}
		// end::bean[]
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(Exports.class)
	static class Application {

	}

}

record Report(String tenantId) {
}

@Service
class Exports {

	// tag::annotations[]
	// or name = "exports"
	@ConcurrencyLimited(value = "exports", key = "#tenantId")
	public Report export(String tenantId) {
		return new Report(tenantId);
	}

	// inline, kept under the method's signature
	@ConcurrencyLimited(limit = 2, lease = "10s", key = "#userId")
	public byte[] render(String userId) {
		return new byte[] { 1 };
	}
	// end::annotations[]

}
