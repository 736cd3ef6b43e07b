package io.github.redkit.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.cache.annotation.EnableCaching;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * The Redkit sample application: Retwis (seed 003) with ad campaigns (seed 004), where
 * every Redkit capability does a real job.
 */
@SpringBootApplication
@EnableCaching
@EnableScheduling
public class SampleApplication {

	public static void main(String[] args) {
		SpringApplication.run(SampleApplication.class, args);
	}

}
