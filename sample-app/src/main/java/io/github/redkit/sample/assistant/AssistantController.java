package io.github.redkit.sample.assistant;

import io.github.redkit.sample.retwis.Users;
import io.github.redkit.sample.web.Validation;
import org.jspecify.annotations.Nullable;

import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

/**
 * The assistant's HTTP API: {@code POST /api/assistant/summaries} with a logged-in user's
 * {@code Authorization} header.
 */
@RestController
class AssistantController {

	private final Users users;

	private final Assistant assistant;

	AssistantController(Users users, Assistant assistant) {
		this.users = users;
		this.assistant = assistant;
	}

	@PostMapping("/api/assistant/summaries")
	Assistant.Summary summarize(@RequestHeader(value = "Authorization", required = false) String auth,
			@RequestBody(required = false) @Nullable Draft draft) {
		String text = Validation.required("text", (draft != null) ? draft.text() : null, 5000);
		return this.assistant.summarize(this.users.authenticate(auth), text);
	}

	/**
	 * A text to summarize.
	 *
	 * @param text the text
	 */
	record Draft(@Nullable String text) {
	}

}
