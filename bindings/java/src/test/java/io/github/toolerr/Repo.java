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

  /** compact removes the whitespace outside strings of a JSON text, keeping escapes as written. */
  static String compact(String text) {
    StringBuilder out = new StringBuilder(text.length());
    boolean inString = false;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (inString) {
        out.append(c);
        if (c == '\\') out.append(text.charAt(++i));
        else if (c == '"') inString = false;
      } else if (c == '"') {
        inString = true;
        out.append(c);
      } else if (c != ' ' && c != '\n' && c != '\t' && c != '\r') {
        out.append(c);
      }
    }
    return out.toString();
  }

  /** shared is one Toolerr for the tests that need no options of their own. */
  static final Toolerr TOOLERR = Toolerr.load();
}
