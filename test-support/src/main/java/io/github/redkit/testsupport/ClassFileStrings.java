package io.github.redkit.testsupport;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.HashSet;
import java.util.Set;

/**
 * The text constants of a compiled class, read from its constant pool: the strings a
 * class file spells (its literals, and the recipes of its string concatenations) beside
 * the names of what it refers to. ArchUnit gives a class's calls but not their arguments;
 * {@link HandStartedServers} reads here which command a class runs.
 */
final class ClassFileStrings {

	private static final int MAGIC = 0xCAFEBABE;

	private ClassFileStrings() {
	}

	/**
	 * Reads the text constants of a class file.
	 * @param classFile the class file, from its first byte
	 * @return every {@code CONSTANT_Utf8} entry of its constant pool
	 * @throws IOException when it cannot be read or is no class file
	 */
	static Set<String> read(InputStream classFile) throws IOException {
		DataInputStream in = new DataInputStream(classFile);
		if (in.readInt() != MAGIC) {
			throw new IOException("not a class file");
		}
		in.readInt(); // minor and major version
		int count = in.readUnsignedShort();
		Set<String> strings = new HashSet<>();
		for (int index = 1; index < count; index++) {
			int tag = in.readUnsignedByte();
			switch (tag) {
				case 1 -> strings.add(in.readUTF());
				case 7, 8, 16, 19, 20 -> in.skipNBytes(2); // class, string, method type,
															// module, package
				case 15 -> in.skipNBytes(3); // method handle
				case 3, 4, 9, 10, 11, 12, 17, 18 -> in.skipNBytes(4); // int, float, refs,
																		// name and type,
																		// dynamic
				case 5, 6 -> { // long, double: two entries
					in.skipNBytes(8);
					index++;
				}
				default -> throw new IOException("unknown constant pool tag " + tag);
			}
		}
		return strings;
	}

}
