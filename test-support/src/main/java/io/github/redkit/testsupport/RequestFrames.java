package io.github.redkit.testsupport;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The commands a client sends on one connection, whole, whatever reads its bytes arrive
 * in: a RESP array of bulk strings (what every client sends) or an inline command. A
 * command split across two reads is returned once its last byte arrived; bytes that are
 * neither are returned as a command of one argument, the bytes themselves, and the
 * framing starts again with the next read.
 */
final class RequestFrames {

	private static final byte[] NONE = new byte[0];

	// the bytes of the command not yet whole
	private byte[] pending = NONE;

	/**
	 * The commands the bytes of one more read complete.
	 * @param read the bytes read
	 * @return each command whose last byte is in them, as its arguments
	 */
	List<List<byte[]>> feed(byte[] read) {
		byte[] bytes = (this.pending.length == 0) ? read : concat(this.pending, read);
		List<List<byte[]>> commands = new ArrayList<>();
		int at = 0;
		while (at < bytes.length) {
			@Nullable Frame frame;
			try {
				frame = (bytes[at] == '*') ? array(bytes, at) : inline(bytes, at);
			}
			catch (NumberFormatException ex) {
				// not RESP: the bytes as one argument, framed afresh from the next read
				commands.add(List.of(Arrays.copyOfRange(bytes, at, bytes.length)));
				at = bytes.length;
				break;
			}
			if (frame == null) {
				break;
			}
			if (!frame.arguments.isEmpty()) {
				commands.add(frame.arguments);
			}
			at = frame.end;
		}
		this.pending = (at < bytes.length) ? Arrays.copyOfRange(bytes, at, bytes.length) : NONE;
		return commands;
	}

	/** A RESP array of bulk strings, or {@code null} while its last byte is missing. */
	private static @Nullable Frame array(byte[] bytes, int start) {
		int end = lineEnd(bytes, start);
		if (end < 0) {
			return null;
		}
		int count = number(bytes, start + 1, end);
		List<byte[]> arguments = new ArrayList<>(Math.max(count, 0));
		int at = end + 2;
		for (int i = 0; i < count; i++) {
			if (at >= bytes.length) {
				return null;
			}
			if (bytes[at] != '$') {
				throw new NumberFormatException("not a bulk string");
			}
			int header = lineEnd(bytes, at);
			if (header < 0) {
				return null;
			}
			int length = number(bytes, at + 1, header);
			int from = header + 2;
			if (length < 0 || from + length + 2 > bytes.length) {
				if (length < 0) {
					throw new NumberFormatException("a null bulk string in a request");
				}
				return null;
			}
			arguments.add(Arrays.copyOfRange(bytes, from, from + length));
			at = from + length + 2;
		}
		return new Frame(arguments, at);
	}

	/** An inline command (words up to a line's end), or {@code null} while incomplete. */
	private static @Nullable Frame inline(byte[] bytes, int start) {
		int end = -1;
		for (int i = start; i < bytes.length; i++) {
			if (bytes[i] == '\n') {
				end = i;
				break;
			}
		}
		if (end < 0) {
			return null;
		}
		String line = new String(bytes, start, end - start, StandardCharsets.ISO_8859_1).strip();
		List<byte[]> arguments = new ArrayList<>();
		if (!line.isEmpty()) {
			for (String word : line.split("\\s+")) {
				arguments.add(word.getBytes(StandardCharsets.ISO_8859_1));
			}
		}
		return new Frame(arguments, end + 1);
	}

	/** Where the line starting at an index ends (its {@code \r}), or -1. */
	private static int lineEnd(byte[] bytes, int start) {
		for (int i = start; i + 1 < bytes.length; i++) {
			if (bytes[i] == '\r' && bytes[i + 1] == '\n') {
				return i;
			}
		}
		return -1;
	}

	private static int number(byte[] bytes, int from, int to) {
		return Integer.parseInt(new String(bytes, from, to - from, StandardCharsets.US_ASCII));
	}

	private static byte[] concat(byte[] first, byte[] second) {
		byte[] both = Arrays.copyOf(first, first.length + second.length);
		System.arraycopy(second, 0, both, first.length, second.length);
		return both;
	}

	private record Frame(List<byte[]> arguments, int end) {
	}

}
