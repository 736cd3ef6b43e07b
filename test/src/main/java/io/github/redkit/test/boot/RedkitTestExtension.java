package io.github.redkit.test.boot;

import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import org.springframework.test.context.TestContextAnnotationUtils;
import org.springframework.test.context.junit.jupiter.SpringExtension;

/**
 * Removes Redkit's keys before each test of a {@link RedkitTest @RedkitTest} class whose
 * {@link RedkitTest#reset() reset} is {@link RedkitTest.Reset#BEFORE_EACH}.
 */
class RedkitTestExtension implements BeforeEachCallback {

	@Override
	public void beforeEach(ExtensionContext context) {
		RedkitTest annotation = TestContextAnnotationUtils.findMergedAnnotation(context.getRequiredTestClass(),
				RedkitTest.class);
		if (annotation != null && annotation.reset() == RedkitTest.Reset.BEFORE_EACH) {
			SpringExtension.getApplicationContext(context).getBean(RedkitTestRedis.class).reset();
		}
	}

}
