package io.github.toolerr.internal;

import com.dylibso.chicory.runtime.Instance;
import java.util.Arrays;
import java.util.Random;

/** InitImageCheck reaches the package's internals for PackageTest. */
public final class InitImageCheck {
  private InitImageCheck() {}

  /** matchesFreshInitialize runs _initialize as the build did and compares its state with the jar's image. */
  public static boolean matchesFreshInitialize() {
    InitImage image = InitImage.decode(Module.resource(Module.IMAGE_RESOURCE));
    Instance fresh = Module.instantiate(Integer.MAX_VALUE, new Random(0));
    fresh.export("_initialize").apply();
    InitImage now = InitImage.capture(fresh, image.wasmSha256);
    return now.pages == image.pages
        && Arrays.equals(now.memory, image.memory)
        && Arrays.equals(now.globalIndex, image.globalIndex)
        && Arrays.equals(now.globalValue, image.globalValue);
  }

  public static void verify(byte[] wasm, String want) {
    Engine.verifyDigest(wasm, want);
  }
}
