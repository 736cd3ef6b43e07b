package io.github.redkit.core;

import java.io.IOException;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;

import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every script is named {@code <owner>_<what>.lua}, its owner the package that calls it:
 * a capability, {@code region}, or {@code core} for what every script may include, so
 * that a script's file says where its caller lives (docs/architecture.md, "Lua style").
 */
class LuaScriptNamesTests {

	@Test
	void everyScriptIsNamedAfterThePackageThatOwnsIt() throws IOException {
		PathMatchingResourcePatternResolver resolver = new PathMatchingResourcePatternResolver();
		Set<String> owners = new TreeSet<>();
		for (Resource info : resolver.getResources("classpath*:io/github/redkit/*/package-info.class")) {
			String path = info.getURL().getPath();
			String withoutFile = path.substring(0, path.lastIndexOf('/'));
			owners.add(withoutFile.substring(withoutFile.lastIndexOf('/') + 1));
		}
		owners.removeAll(Set.of("actuate", "autoconfigure", "testsupport"));
		// the scripts of this module's own tests (src/test/resources), which no package
		// owns
		owners.add("test");
		assertThat(owners).contains("core", "ratelimit", "region");
		Set<String> misnamed = new TreeSet<>();
		Resource[] scripts = resolver.getResources("classpath*:META-INF/redkit/scripts/*.lua");
		assertThat(scripts).isNotEmpty();
		Arrays.stream(scripts)
			.map(Resource::getFilename)
			.filter((name) -> name == null || !name.matches("[a-z0-9]+_[a-z0-9_]+\\.lua")
					|| !owners.contains(name.substring(0, name.indexOf('_'))))
			.forEach(misnamed::add);
		assertThat(misnamed).as("scripts not named <owner>_<what>.lua (owners: %s)", owners).isEmpty();
	}

}
