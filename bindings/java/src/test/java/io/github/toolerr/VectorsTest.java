package io.github.toolerr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.toolerr.internal.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every vector of tests/vectors/v1 through the raw call, byte for byte. The calls have no time
 * bound: the vectors check answers, PolicyTest the bound (a work-budget vector takes seconds here).
 */
class VectorsTest {
  @Test
  void everyVectorGivesItsExactAnswer() throws IOException {
    Toolerr toolerr = Toolerr.load(Options.defaults().withCallTimeout(java.time.Duration.ZERO));
    List<String> failures = new ArrayList<>();
    int count = 0;
    List<Path> files;
    try (Stream<Path> s = Files.list(Repo.ROOT.resolve("tests/vectors/v1"))) {
      files = s.filter(p -> p.toString().endsWith(".json")).sorted().toList();
    }
    for (Path file : files) {
      Map<String, String> top = Json.members(Files.readString(file, StandardCharsets.UTF_8));
      String export = (String) Json.parse(top.get("export"));
      for (String caseText : Json.elements(top.get("cases"))) {
        Map<String, String> c = Json.members(caseText);
        String name = export + ": " + Json.parse(c.get("description"));
        String input = c.get("input");
        byte[] request =
            input.trim().startsWith("\"")
                ? ((String) Json.parse(input)).getBytes(StandardCharsets.UTF_8)
                : Json.compact(input).getBytes(StandardCharsets.UTF_8);
        count++;
        try {
          String got = new String(toolerr.call(export, request), StandardCharsets.UTF_8);
          if (c.containsKey("error")) {
            failures.add(name + ": answered " + got + ", want " + c.get("error"));
          } else if (!got.equals(Json.parse(c.get("output")))) {
            failures.add(name + ":\n got " + got + "\nwant " + Json.parse(c.get("output")));
          }
        } catch (ToolerrException e) {
          Object want = c.containsKey("error") ? Json.parse(c.get("error")) : null;
          if (!(want instanceof Map<?, ?> w) || !e.code().equals(w.get("code")) || !e.getMessage().equals(w.get("message"))) {
            failures.add(name + ": " + e + ", want " + (want == null ? "an output" : want));
          }
        }
      }
    }
    assertTrue(count > 1000, "only " + count + " vectors found");
    assertEquals(List.of(), failures, failures.size() + " of " + count + " vectors failed");
  }
}
