package io.github.redkit.sample;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import io.github.redkit.test.boot.RedkitTest;

import org.springframework.boot.test.context.SpringBootTest;

/**
 * The sample on a random port of the shared test Redis, with the admin token
 * {@link SampleClient#ADMIN} and a short last-seen delay: one application for every class
 * that needs nothing else, which Spring's test context cache starts once per JVM instead
 * of once per class (each start is a whole application's: Tomcat, the dashboard, the
 * queues' listeners). Between tests {@link RedkitTest} removes Redkit's keys, as between
 * the tests of one class; the classes' own data lives under names of their own
 * ({@link SampleClient#uniqueName(String)}).
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "sample.admin-token=" + SampleClient.ADMIN, "sample.embedded-redis=false",
				"sample.last-seen.delay=300ms" })
@RedkitTest
@interface SampleApplicationTest {

}
