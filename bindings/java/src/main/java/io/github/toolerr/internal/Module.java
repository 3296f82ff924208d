package io.github.toolerr.internal;

import com.dylibso.chicory.log.Logger;
import com.dylibso.chicory.runtime.ByteArrayMemory;
import com.dylibso.chicory.runtime.HostFunction;
import com.dylibso.chicory.runtime.ImportValues;
import com.dylibso.chicory.runtime.Instance;
import com.dylibso.chicory.wasi.WasiOptions;
import com.dylibso.chicory.wasi.WasiPreview1;
import com.dylibso.chicory.wasm.WasmModule;
import com.dylibso.chicory.wasm.types.FunctionImport;
import com.dylibso.chicory.wasm.types.MemoryLimits;
import java.io.IOException;
import java.io.InputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Random;

/**
 * Module is the compiled toolerr.wasm: its classes (made by Chicory's compiler at build time,
 * {@code ToolerrModule}), and how one instance of it is made.
 *
 * <h2>Notes</h2>
 *
 * <ul>
 *   <li>An instance sees no file system and no environment; its stdout and stderr are discarded.
 *   <li>The module's {@code extism:host/env} imports serve only its Extism exports; the raw path
 *       never reaches them, so they are stubs that fail loudly if it ever did.
 * </ul>
 */
public final class Module {
  private Module() {}

  static final String WASM_RESOURCE = "toolerr.wasm";
  static final String SHA256_RESOURCE = "toolerr.wasm.sha256";
  static final String IMAGE_RESOURCE = "toolerr.init";

  /** wasm is the compiled module's structure (the code itself is in the generated classes). */
  static WasmModule wasm() {
    return ToolerrModule.load();
  }

  /** instantiate makes an instance, not yet initialised, with memory capped at maxPages. */
  static Instance instantiate(int maxPages, Random random) {
    WasmModule module = wasm();
    WasiPreview1 wasi =
        WasiPreview1.builder()
            .withLogger(SILENT)
            .withOptions(WasiOptions.builder().withRandom(random).build())
            .build();
    ImportValues.Builder imports = ImportValues.builder().addFunction(wasi.toHostFunctions());
    var section = module.importSection();
    for (int i = 0; i < section.importCount(); i++) {
      if (section.getImport(i) instanceof FunctionImport fn && fn.module().equals("extism:host/env")) {
        String name = fn.name();
        imports.addFunction(
            new HostFunction(
                fn.module(),
                name,
                module.typeSection().getType(fn.typeIndex()),
                (instance, args) -> {
                  throw new IllegalStateException("toolerr: extism:host/env " + name + " called on the raw path");
                }));
      }
    }
    MemoryLimits declared = module.memorySection().orElseThrow().getMemory(0).limits();
    int max = Math.min(maxPages, declared.maximumPages());
    return Instance.builder(module)
        .withImportValues(imports.build())
        .withMachineFactory(ToolerrModule::create)
        .withMemoryFactory(ByteArrayMemory::new)
        .withMemoryLimits(new MemoryLimits(Math.min(declared.initialPages(), max), max))
        .withStart(false)
        .build();
  }

  /** resource reads one of the files the build put beside this class. */
  static byte[] resource(String name) {
    try (InputStream in = Module.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("toolerr: the jar holds no " + name + " (a broken build)");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new IllegalStateException("toolerr: reading " + name + ": " + e.getMessage(), e);
    }
  }

  /** sha256 is the hex digest of bytes. */
  static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** recordedSha256 is the digest of a sha256sum line ("HEX  toolerr.wasm"). */
  static String recordedSha256(byte[] line) {
    String text = new String(line, java.nio.charset.StandardCharsets.UTF_8).trim();
    int space = text.indexOf(' ');
    return (space < 0 ? text : text.substring(0, space)).toLowerCase(java.util.Locale.ROOT);
  }

  private static final Logger SILENT =
      new Logger() {
        @Override
        public void log(Level level, String msg, Throwable throwable) {}

        @Override
        public boolean isLoggable(Level level) {
          return false;
        }
      };
}
