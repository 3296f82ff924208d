package io.github.toolerr;

import io.github.toolerr.internal.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Repo reads the repository's shared test data (the tests run in bindings/java). */
final class Repo {
  private Repo() {}

  static final Path ROOT = Path.of("../..").toAbsolutePath().normalize();

  static String read(String path) {
    try {
      return Files.readString(ROOT.resolve(path), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static Object json(String path) {
    return Json.parse(read(path));
  }

  /** shared is one Toolerr for the tests that need no options of their own. */
  static final Toolerr TOOLERR = Toolerr.load();
}
