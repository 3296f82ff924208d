package io.github.toolerr;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.toolerr.abi.Abi;
import io.github.toolerr.abi.Description;
import io.github.toolerr.abi.Limits;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import org.junit.jupiter.api.Test;

/** What the artifact carries: the committed module, its version, an init image true to it. */
class PackageTest {
  @Test
  void theJarCarriesTheCommittedModule() throws IOException {
    try (InputStream in = Toolerr.class.getResourceAsStream("internal/toolerr.wasm")) {
      assertArrayEquals(Files.readAllBytes(Repo.ROOT.resolve("plugin/toolerr.wasm")), in.readAllBytes());
    }
    try (InputStream in = Toolerr.class.getResourceAsStream("internal/toolerr.wasm.sha256")) {
      assertEquals(Repo.read("plugin/toolerr.wasm.sha256"), new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8));
    }
  }

  @Test
  void versionIsTheRepositorysAndTheModules() {
    String version = Repo.read("VERSION").trim();
    assertEquals(version, Repo.TOOLERR.description().version());
    assertTrue(Repo.read("bindings/java/pom.xml").contains("<version>" + version + "</version>"));
    assertTrue(Repo.read("examples/java/pom.xml").contains("<version>" + version + "</version>"));
    assertEquals("1", Repo.TOOLERR.description().abiVersion().split("\\.")[0]);
  }

  @Test
  void theModuleDescribesTheAbiOfAbiJson() {
    Description d = Repo.TOOLERR.description();
    assertEquals(Abi.VERSION, d.abiVersion());
    assertEquals(Abi.MODULE_VERSION, d.version());
    assertEquals(Abi.EXPORTS, d.exports());
    assertEquals(Abi.CANONICAL_CODES, d.codes());
    assertEquals(Abi.SEVERITIES, d.severities());
    assertEquals(new Limits(Abi.MAX_REQUEST_BYTES, Abi.MAX_DEPTH, Abi.MAX_VALUES), d.limits());
  }

  @Test
  void initImageIsWhatInitializeMakes() {
    assertTrue(io.github.toolerr.internal.InitImageCheck.matchesFreshInitialize(), "the image differs from _initialize's state");
  }

  @Test
  void loadRefusesAModuleOfAnotherDigestOrAnImageOfAnotherModule() {
    var e = org.junit.jupiter.api.Assertions.assertThrows(ToolerrException.class,
        () -> io.github.toolerr.internal.InitImageCheck.verify(new byte[] {0, 'a', 's', 'm'}, "00"));
    assertEquals(ToolerrException.LOAD, e.code());
    assertTrue(e.getMessage().startsWith("toolerr: module sha256 is "), e.getMessage());
  }

}
