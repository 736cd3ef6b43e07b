package io.github.redkit.sample.assistant;

import java.util.Arrays;
import java.util.stream.Collectors;

import io.github.redkit.ratelimit.RateLimited;
import io.github.redkit.sample.retwis.User;

import org.springframework.stereotype.Service;

/**
 * Summarizes a draft post, as a call to a language model would: what it costs, its
 * tokens, is known only once it answers. Each call takes an estimate of 400 tokens from
 * the user's budget up front and is settled with the tokens it really used.
 */
@Service
public class Assistant {

	private static final int SUMMARY_WORDS = 12;

	/**
	 * Summarizes a text.
	 * @param user who asks
	 * @param text the text
	 * @return the summary and the tokens it used
	 */
	// tag::settle[]
	@RateLimited(value = "assistant-tokens", key = "'user:' + #user.id()", cost = 400, settle = "#result.tokens()")
	public Summary summarize(User user, String text) {
		// end::settle[]
		String[] words = text.strip().split("\\s+");
		String summary = Arrays.stream(words).limit(SUMMARY_WORDS).collect(Collectors.joining(" "));
		// a stand-in for a model's usage: a token per word read and written
		return new Summary(summary, words.length + Math.min(words.length, SUMMARY_WORDS));
	}

	/**
	 * What the assistant answers.
	 *
	 * @param summary the summary
	 * @param tokens the tokens the call used
	 */
	public record Summary(String summary, int tokens) {
	}

}
