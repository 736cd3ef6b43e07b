package com.example.shop;

import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.cache.annotation.Cacheable;
import org.springframework.stereotype.Service;

/**
 * The cached method of {@code docs/caching.md}, in a package its configuration trusts.
 * Deliberately outside {@code io.github.redkit}: it plays a user's package (the trusted
 * package of the docs' YAML), one of the sample-app's roots in
 * {@code docs/architecture.md}.
 */
@Service
public class Catalog {

	private final ProductRepository repository = new ProductRepository();

	// tag::cacheable[]
	// one instance in the cluster computes a missing key
	@Cacheable(cacheNames = "products", sync = true)
	public Product product(String id) {
		return repository.load(id);
	}
	// end::cacheable[]

	public int loads() {
		return this.repository.loads.get();
	}

	static class ProductRepository {

		private final AtomicInteger loads = new AtomicInteger();

		Product load(String id) {
			this.loads.incrementAndGet();
			return new Product(id, "product " + id);
		}

	}

}
