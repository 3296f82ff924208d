package io.github.toolerr.internal;

import com.dylibso.chicory.runtime.Instance;
import com.dylibso.chicory.wasm.types.MutabilityType;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.DeflaterOutputStream;
import java.util.zip.Inflater;

/**
 * InitImage is an instance's state right after the module's {@code _initialize}: its linear memory
 * and its mutable globals, made once at build time and restored into every new instance.
 *
 * <p>{@code _initialize} runs the Go packages' initialisers, chiefly the JSON Schema validator
 * compiling its meta-schemas; on a JVM that has not yet compiled the module's code to machine code
 * that took 1.3 s of every process's first instance, and the image takes milliseconds to restore.
 * The random source is seeded with 0 while the image is made, so that a build gives the same image
 * every time (the initialisers draw random numbers only for hash-map seeds); a restored instance
 * gets a real random source for everything after.
 *
 * <p>{@code java InitImage WASM OUT} checks WASM against its {@code .sha256} record, runs {@code
 * _initialize} on the compiled classes and writes OUT (the jar's {@code toolerr.init}).
 */
public final class InitImage {
  static final int MAGIC = 0x544f4c52; // "TOLR"
  static final int FORMAT = 1;

  final String wasmSha256;
  final int pages;
  final int[] globalIndex;
  final long[] globalValue;
  final byte[] memory;

  private InitImage(String wasmSha256, int pages, int[] globalIndex, long[] globalValue, byte[] memory) {
    this.wasmSha256 = wasmSha256;
    this.pages = pages;
    this.globalIndex = globalIndex;
    this.globalValue = globalValue;
    this.memory = memory;
  }

  public static void main(String[] args) throws IOException {
    if (args.length != 2) {
      System.err.println("usage: InitImage WASM OUT");
      System.exit(64);
    }
    Path wasm = Path.of(args[0]);
    String digest = Module.sha256(Files.readAllBytes(wasm));
    String recorded = Module.recordedSha256(Files.readAllBytes(Path.of(args[0] + ".sha256")));
    if (!digest.equals(recorded)) {
      throw new IllegalStateException(wasm + " has sha256 " + digest + ", but its .sha256 says " + recorded);
    }
    long start = System.nanoTime();
    Instance instance = Module.instantiate(Integer.MAX_VALUE, new Random(0));
    instance.export("_initialize").apply();
    byte[] image = capture(instance, digest).encode();
    Path out = Path.of(args[1]);
    Files.createDirectories(out.getParent());
    Files.write(out, image);
    System.out.printf(
        "toolerr: %s, %d pages after _initialize (%.1f s), %d bytes%n",
        out.getFileName(), instance.memory().pages(), (System.nanoTime() - start) / 1e9, image.length);
  }

  /** capture reads an initialised instance's state. */
  static InitImage capture(Instance instance, String wasmSha256) {
    var globals = Module.wasm().globalSection();
    int mutable = 0;
    for (int i = 0; i < globals.globalCount(); i++) {
      if (globals.getGlobal(i).mutabilityType() == MutabilityType.Var) mutable++;
    }
    int[] index = new int[mutable];
    long[] value = new long[mutable];
    int n = 0;
    for (int i = 0; i < globals.globalCount(); i++) {
      if (globals.getGlobal(i).mutabilityType() == MutabilityType.Var) {
        index[n] = i;
        value[n++] = instance.global(i).getValue();
      }
    }
    int pages = instance.memory().pages();
    return new InitImage(wasmSha256, pages, index, value, instance.memory().readBytes(0, pages * 65536));
  }

  /** restore puts the image into a new, uninitialised instance. */
  void restore(Instance instance) {
    var mem = instance.memory();
    int grow = pages - mem.pages();
    if (grow > 0 && mem.grow(grow) < 0) {
      throw new IllegalStateException(
          "toolerr: the module needs " + pages + " pages of memory to start, over the cap of " + mem.maximumPages());
    }
    mem.write(0, memory);
    for (int i = 0; i < globalIndex.length; i++) {
      instance.global(globalIndex[i]).setValue(globalValue[i]);
    }
  }

  byte[] encode() throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeInt(MAGIC);
      out.writeInt(FORMAT);
      out.writeUTF(wasmSha256);
      out.writeInt(pages);
      out.writeInt(globalIndex.length);
      for (int i = 0; i < globalIndex.length; i++) {
        out.writeInt(globalIndex[i]);
        out.writeLong(globalValue[i]);
      }
      ByteArrayOutputStream packed = new ByteArrayOutputStream();
      try (DeflaterOutputStream z = new DeflaterOutputStream(packed, new Deflater(Deflater.BEST_COMPRESSION))) {
        z.write(memory);
      }
      out.writeInt(packed.size());
      packed.writeTo(out);
    }
    return bytes.toByteArray();
  }

  static InitImage decode(byte[] encoded) {
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(encoded))) {
      if (in.readInt() != MAGIC || in.readInt() != FORMAT) {
        throw new IllegalStateException("toolerr: toolerr.init is not an init image of this binding");
      }
      String sha = in.readUTF();
      int pages = in.readInt();
      int count = in.readInt();
      int[] index = new int[count];
      long[] value = new long[count];
      for (int i = 0; i < count; i++) {
        index[i] = in.readInt();
        value[i] = in.readLong();
      }
      byte[] packed = new byte[in.readInt()];
      in.readFully(packed);
      byte[] memory = new byte[pages * 65536];
      Inflater inflater = new Inflater();
      inflater.setInput(packed);
      int n = 0;
      while (n < memory.length && !inflater.finished()) {
        int got = inflater.inflate(memory, n, memory.length - n);
        if (got == 0 && (inflater.needsInput() || inflater.needsDictionary())) break;
        n += got;
      }
      inflater.end();
      if (n != memory.length) throw new IllegalStateException("toolerr: toolerr.init is truncated");
      return new InitImage(sha, pages, index, value, memory);
    } catch (IOException | DataFormatException e) {
      throw new IllegalStateException("toolerr: toolerr.init is unreadable: " + e.getMessage(), e);
    }
  }
}
