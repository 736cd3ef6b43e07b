package io.github.redkit.docs;

import com.example.shop.Catalog;
import com.example.shop.Product;
import io.github.redkit.test.boot.RedkitTest;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.cache.annotation.EnableCaching;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The snippets of {@code docs/caching.md}: its configuration and a cached method whose
 * value Redis holds as JSON.
 */
@SpringBootTest(classes = CachingDocsTests.Application.class, webEnvironment = SpringBootTest.WebEnvironment.NONE,
		properties = "spring.config.location=classpath:docs/caching.yml")
@RedkitTest
class CachingDocsTests {

	@Autowired
	Catalog catalog;

	@Autowired
	StringRedisTemplate redis;

	@Test
	void aProductIsLoadedOnceAndKeptAsJsonForAnHourAtMost() {
		String id = "p-" + System.nanoTime();
		Product first = this.catalog.product(id);
		assertThat(this.catalog.product(id)).isEqualTo(first);
		assertThat(this.catalog.loads()).isOne();
		assertThat(this.redis.opsForValue().get("products::" + id)).contains("\"@class\":\"com.example.shop.Product\"");
		assertThat(this.redis.getExpire("products::" + id)).isBetween(54L * 60, 3600L);
		this.redis.delete("products::" + id);
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@EnableCaching
	@Import(Catalog.class)
	static class Application {

	}

}
