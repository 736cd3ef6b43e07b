package io.github.redkit.core;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.redkit.core.internal.LuaScript;
import org.junit.jupiter.api.Test;

import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The scripts send every number to Redis as exact text. Lua turns a number into text with
 * 14 significant digits ({@code tostring}, {@code ..}) and Redis turns a number argument
 * of {@code redis.call} into text with 17: 10^14 and 10^17 and more come out as
 * {@code 1e+14} and {@code 1e+17}, which a command refuses or misreads. So a number is
 * written with {@code exact(n)} or {@code format('%.0f', n)}: this test reads the sources
 * and fails on a numeric argument of a command that is not, on a number joined with
 * {@code ..} and on {@code tostring}.
 */
class LuaScriptNumbersTests {

	/**
	 * The arguments of each command that Redis reads as numbers (0 = the first after the
	 * name).
	 */
	private static final Map<String, Set<Integer>> NUMBER_ARGUMENTS = Map.of("PEXPIRE", Set.of(1), "EXPIRE", Set.of(1),
			"INCRBY", Set.of(1), "DECRBY", Set.of(1), "HINCRBY", Set.of(2), "ZRANGEBYSCORE", Set.of(1, 2),
			"ZREMRANGEBYSCORE", Set.of(1, 2), "ZCOUNT", Set.of(1, 2), "ZRANGE", Set.of(1, 2), "LPOP", Set.of(1));

	/** Options followed by a number. */
	private static final Set<String> NUMBER_OPTIONS = Set.of("'PX'", "'PXAT'", "'EX'", "'LIMIT'", "'MAXLEN'",
			"'COUNT'");

	private static final Pattern CALL = Pattern.compile("(?<![\\w.])(?:redis\\.)?p?call\\(");

	private static final Pattern ASSIGNMENT = Pattern.compile(
			"^[ \\t]*(?:.*\\b(?:do|then|else)\\s+)?(?:local\\s+)?([\\w \\t,]+?)[ \\t]*=(?!=)[ \\t]*(.+)$",
			Pattern.MULTILINE);

	private static final Pattern NUMERIC_FOR = Pattern.compile("\\bfor\\s+(\\w+)\\s*=");

	/**
	 * Exact text: a call of exact() or of format with %.0f, an argument, a string reply,
	 * a literal.
	 */
	private static final Pattern EXACT = Pattern.compile(
			"^(?:exact\\(.*\\)|(?:string\\.)?format\\('%\\.0f', .*\\)|ARGV\\[[^]]+]|(?:redis\\.)?call\\('H?GET', .*\\)|'[^']*'|\\d+)$");

	private static final Pattern NUMERIC = Pattern
		.compile("^(?:-?\\d.*|#.*|tonumber\\(.*|math\\..*|floor\\(.*|ceil\\(.*|max\\(.*|min\\(.*)$");

	private static final Set<String> NUMBER_REPLIES = Set.of("INCR", "INCRBY", "DECRBY", "HINCRBY", "PTTL", "ZCARD",
			"DEL", "EXISTS", "ZREM", "HDEL");

	@Test
	void everyNumberSentToRedisIsWrittenExactly() throws IOException {
		List<String> violations = new ArrayList<>();
		for (Resource script : new PathMatchingResourcePatternResolver()
			.getResources("classpath*:" + LuaScript.LOCATION + "*.lua")) {
			String name = script.getFilename();
			if (name == null) {
				continue;
			}
			String source = withoutComments(script.getContentAsString(StandardCharsets.UTF_8));
			Set<String> numbers = numericNames(source);
			Set<String> texts = exactNames(source);
			for (List<String> call : calls(source)) {
				String command = call.get(0).replace("'", "").toUpperCase();
				Set<Integer> positions = NUMBER_ARGUMENTS.getOrDefault(command, Set.of());
				for (int i = 1; i < call.size(); i++) {
					String argument = call.get(i);
					boolean number = positions.contains(i - 1) || NUMBER_OPTIONS.contains(call.get(i - 1))
							|| (command.equals("ZADD") && isScore(call, i));
					if ((number && !isExact(argument) && !texts.contains(argument)) || isNumeric(argument, numbers)) {
						violations.add(name + ": " + command + " " + argument);
					}
				}
			}
			for (String operand : concatenated(source)) {
				if (isNumeric(operand, numbers)) {
					violations.add(name + ": .. " + operand);
				}
			}
			if (source.contains("tostring(")) {
				violations.add(name + ": tostring");
			}
		}
		assertThat(violations).isEmpty();
	}

	@Test
	void theScanFindsANumberSentAsItIs() {
		String source = "local retention = tonumber(ARGV[6])\nredis.call('PEXPIRE', KEYS[3], retention)\n"
				+ "redis.call('SET', KEYS[1], '1', 'PX', math.max(1, 2))\nlocal s = 'a' .. retention";
		Set<String> numbers = numericNames(source);
		List<List<String>> calls = calls(source);
		assertThat(numbers).contains("retention");
		assertThat(isExact(calls.get(0).get(2))).isFalse();
		assertThat(isExact(calls.get(1).get(4))).isFalse();
		assertThat(concatenated(source)).containsExactly("'a'", "retention");
	}

	private static boolean isScore(List<String> call, int i) {
		int first = 2;
		while (first < call.size() && call.get(first).matches("'(NX|XX|GT|LT|CH|INCR)'")) {
			first++;
		}
		return i >= first && (i - first) % 2 == 0 && !call.get(i).startsWith("unpack(");
	}

	private static boolean isExact(String argument) {
		if (EXACT.matcher(argument).matches()) {
			return true;
		}
		List<String> parts = split(argument, "..");
		return parts.size() > 1 && parts.stream().allMatch(LuaScriptNumbersTests::isExact);
	}

	private static boolean isNumeric(String expression, Set<String> numbers) {
		String e = expression.trim();
		if (numbers.contains(e) || (NUMERIC.matcher(e).matches() && !e.matches("\\d+"))) {
			return true;
		}
		Matcher reply = Pattern.compile("^(?:redis\\.)?call\\('(\\w+)'").matcher(e);
		if (reply.find() && NUMBER_REPLIES.contains(reply.group(1).toUpperCase())) {
			return true;
		}
		// arithmetic outside parentheses and strings
		return split(e, "+").size() > 1 || split(e, "*").size() > 1 || split(e, "/").size() > 1
				|| split(e, " - ").size() > 1
				|| (e.startsWith("(") && e.endsWith(")") && isNumeric(e.substring(1, e.length() - 1), numbers));
	}

	/** Names assigned a number anywhere in the script (scopes are not told apart). */
	private static Set<String> numericNames(String source) {
		Set<String> names = new HashSet<>();
		Matcher loop = NUMERIC_FOR.matcher(source);
		while (loop.find()) {
			names.add(loop.group(1));
		}
		// a name assigned from a number counts, as does one from another such name
		for (int pass = 0; pass < 3; pass++) {
			Matcher assignment = ASSIGNMENT.matcher(source);
			while (assignment.find()) {
				List<String> targets = split(assignment.group(1), ",");
				List<String> values = split(assignment.group(2), ",");
				for (int i = 0; i < targets.size() && i < values.size(); i++) {
					String target = targets.get(i).trim();
					if (target.matches("\\w+") && !target.equals("local") && isNumeric(values.get(i), names)) {
						names.add(target);
					}
				}
			}
		}
		return names;
	}

	/** Names only ever assigned exact text. */
	private static Set<String> exactNames(String source) {
		Set<String> exact = new HashSet<>();
		Set<String> other = new HashSet<>();
		Matcher assignment = ASSIGNMENT.matcher(source);
		while (assignment.find()) {
			List<String> targets = split(assignment.group(1), ",");
			List<String> values = split(assignment.group(2), ",");
			for (int i = 0; i < targets.size(); i++) {
				boolean text = i < values.size() && isExact(values.get(i));
				(text ? exact : other).add(targets.get(i).trim());
			}
		}
		exact.removeAll(other);
		return exact;
	}

	/** Each command call's arguments, the command first. */
	private static List<List<String>> calls(String source) {
		List<List<String>> calls = new ArrayList<>();
		Matcher call = CALL.matcher(source);
		while (call.find()) {
			int end = closing(source, call.end() - 1);
			List<String> arguments = split(source.substring(call.end(), end), ",");
			if (arguments.get(0).startsWith("'")) {
				calls.add(arguments.stream().map(String::trim).toList());
			}
		}
		return calls;
	}

	/** The operands on either side of each {@code ..}, error messages left out. */
	private static List<String> concatenated(String source) {
		List<String> operands = new ArrayList<>();
		for (String line : source.split("\n")) {
			if (line.contains("error_reply(")) {
				continue;
			}
			for (int at = line.indexOf(" .. "); at >= 0; at = line.indexOf(" .. ", at + 4)) {
				operands.add(line.substring(operandStart(line, at), at).trim());
				operands.add(line.substring(at + 4, operandEnd(line, at + 4)).trim());
			}
		}
		return operands;
	}

	private static int operandStart(String line, int end) {
		int i = end;
		while (i > 0) {
			char c = line.charAt(i - 1);
			if (c == ')' || c == ']') {
				i = opening(line, i - 1);
			}
			else if (c == '\'') {
				i = line.lastIndexOf('\'', i - 2);
			}
			else if (Character.isLetterOrDigit(c) || c == '_' || c == '.' || c == ':') {
				i--;
			}
			else {
				break;
			}
		}
		return i;
	}

	private static int operandEnd(String line, int start) {
		int i = start;
		while (i < line.length()) {
			char c = line.charAt(i);
			if (c == '(' || c == '[') {
				i = closing(line, i) + 1;
			}
			else if (c == '\'') {
				i = line.indexOf('\'', i + 1) + 1;
			}
			else if (Character.isLetterOrDigit(c) || c == '_' || (c == '.' && !line.startsWith("..", i)) || c == ':') {
				i++;
			}
			else {
				break;
			}
		}
		return i;
	}

	private static int closing(String text, int open) {
		int depth = 0;
		boolean quoted = false;
		for (int i = open; i < text.length(); i++) {
			char c = text.charAt(i);
			if (c == '\'') {
				quoted = !quoted;
			}
			else if (!quoted && (c == '(' || c == '[' || c == '{')) {
				depth++;
			}
			else if (!quoted && (c == ')' || c == ']' || c == '}') && --depth == 0) {
				return i;
			}
		}
		throw new IllegalStateException("Unbalanced: " + text.substring(open));
	}

	private static int opening(String text, int close) {
		int depth = 0;
		for (int i = close; i >= 0; i--) {
			char c = text.charAt(i);
			if (c == ')' || c == ']') {
				depth++;
			}
			else if ((c == '(' || c == '[') && --depth == 0) {
				return i;
			}
		}
		return 0;
	}

	/** Splits at a separator outside brackets and strings. */
	private static List<String> split(String text, String separator) {
		List<String> parts = new ArrayList<>();
		int depth = 0;
		int from = 0;
		boolean quoted = false;
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			if (c == '\'') {
				quoted = !quoted;
			}
			else if (!quoted && (c == '(' || c == '[' || c == '{')) {
				depth++;
			}
			else if (!quoted && (c == ')' || c == ']' || c == '}')) {
				depth--;
			}
			else if (!quoted && depth == 0 && text.startsWith(separator, i)
					&& !(separator.equals("..") && text.startsWith("...", i))) {
				parts.add(text.substring(from, i).trim());
				from = i + separator.length();
				i = from - 1;
			}
		}
		parts.add(text.substring(from).trim());
		return parts;
	}

	private static String withoutComments(String source) {
		StringBuilder out = new StringBuilder();
		for (String line : source.split("\n")) {
			boolean quoted = false;
			int end = line.length();
			for (int i = 0; i < line.length(); i++) {
				char c = line.charAt(i);
				if (c == '\'') {
					quoted = !quoted;
				}
				else if (!quoted && line.startsWith("--", i)) {
					end = i;
					break;
				}
			}
			out.append(line, 0, end).append('\n');
		}
		return out.toString();
	}

}
