package io.github.toolerr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.toolerr.internal.Json;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The hostile requests of tests/hostile/corpus.json through the raw call: each gets the corpus's
 * outcome within its bound, and the next valid call on the same (one-instance) host answers
 * exactly.
 */
class HostileTest {
  /**
   * SLOW: cases the JVM engine answers correctly but not within the corpus's bound on a busy
   * two-core machine, with the reason (abi/ABI.md, "Host policy", states the gap); they run on a
   * host without a per-call time bound and must answer exactly within SLOW_BOUND seconds. Every
   * other case has the corpus's bound.
   */
  static final Map<String, String> SLOW =
      Map.of(
          "size: 100,000 details are answered, in order",
          "the 3.7 MB answer is allocation- and collection-heavy inside the module (TinyGo's allocator"
              + " and collector walk the heap), which runs several times slower on Chicory than on the"
              + " native wasm engines: 3 to 30 s measured here under load, against about 1.3 s in wazero",
          "memory: validate a string of 4,000,000 characters against a pattern",
          "Go's regexp walks the 4 MB string inside the module, several times slower on Chicory than on"
              + " the native wasm engines: 13.9 s measured on a quiet two-core machine (2026-12-05),"
              + " against the corpus's 10 s");

  static final double SLOW_BOUND = 120;

  @Test
  void hostileRequestsGetTheCorpusOutcomeAndTheModuleKeepsServing() {
    Map<?, ?> corpus = (Map<?, ?>) Repo.json("tests/hostile/corpus.json");
    Map<?, ?> next = (Map<?, ?>) corpus.get("next");
    byte[] nextRequest = build(next.get("request"));
    String nextWant = new String(build(next.get("response")), StandardCharsets.UTF_8);
    double defaultBound = ((Number) corpus.get("maxSeconds")).doubleValue();
    List<String> failures = new ArrayList<>();
    try (Toolerr normal = Toolerr.load(Options.defaults().withMaxInstances(1));
        Toolerr patient =
            Toolerr.load(Options.defaults().withMaxInstances(1).withCallTimeout(java.time.Duration.ZERO))) {
      for (Object o : (List<?>) corpus.get("cases")) {
        Map<?, ?> c = (Map<?, ?>) o;
        String name = (String) c.get("description");
        double caseBound = c.get("maxSeconds") instanceof Number n ? n.doubleValue() : defaultBound;
        // A case the corpus gives longer than the default runs on a host
        // whose call timeout is its bound.
        Toolerr toolerr = SLOW.containsKey(name) ? patient : caseBound > defaultBound ? longer(caseBound) : normal;
        byte[] request = build(c.get("request"));
        long start = System.nanoTime();
        String out = null;
        ToolerrException error = null;
        try {
          out = new String(toolerr.call((String) c.get("export"), request), StandardCharsets.UTF_8);
        } catch (ToolerrException e) {
          error = e;
        }
        double took = (System.nanoTime() - start) / 1e9;
        double bound = SLOW.containsKey(name) ? SLOW_BOUND : caseBound;
        if (SLOW.containsKey(name) || caseBound > defaultBound) System.out.printf("hostile: %s: %.1f s (bound %.0f s: %s)%n", name, took, bound, SLOW.getOrDefault(name, "the corpus gives it longer than the default"));
        String problem = problem(c, out, error);
        if (problem != null) failures.add(name + ": " + problem);
        if (took > bound) failures.add(name + ": took " + took + " s, over " + bound);
        try {
          String got = new String(toolerr.call((String) next.get("export"), nextRequest), StandardCharsets.UTF_8);
          if (!got.equals(nextWant)) failures.add(name + ": the next call answered " + got);
        } catch (ToolerrException e) {
          failures.add(name + ": the next call failed: " + e);
        }
      }
    } finally {
      longer.values().forEach(Toolerr::close);
      longer.clear();
    }
    for (String slow : SLOW.keySet()) {
      assertTrue(((List<?>) corpus.get("cases")).stream().anyMatch(o -> slow.equals(((Map<?, ?>) o).get("description"))), "SLOW names no case: " + slow);
    }
    assertEquals(List.of(), failures);
  }

  /** Hosts of one instance whose call timeout is a case's longer bound, by that bound. */
  private final Map<Double, Toolerr> longer = new java.util.HashMap<>();

  private Toolerr longer(double seconds) {
    return longer.computeIfAbsent(
        seconds,
        s -> Toolerr.load(Options.defaults().withMaxInstances(1).withCallTimeout(java.time.Duration.ofMillis((long) (s * 1000)))));
  }

  static String problem(Map<?, ?> c, String out, ToolerrException error) {
    List<?> tolerate = c.get("tolerate") instanceof List<?> l ? l : List.of();
    if (error != null && tolerate.contains(error.code())) return null;
    if (c.get("error") instanceof Map<?, ?> want) {
      if (error == null) return "a response (" + out.substring(0, Math.min(100, out.length())) + "), want " + want.get("code");
      String m = error.getMessage();
      if (!error.code().equals(want.get("code"))) return error.code() + " " + m + ", want " + want.get("code");
      if (want.get("message") instanceof String w && !m.equals(w)) return "message " + m + ", want " + w;
      if (want.get("messageContains") instanceof String w && !m.contains(w)) return "message " + m + ", want one containing " + w;
      if (want.get("messagePrefix") instanceof String w && !m.startsWith(w)) return "message " + m + ", want one starting " + w;
      return null;
    }
    if (error != null) return error + ", want a response";
    if (!out.startsWith("{")) return "response is not a JSON object";
    Json.parse(out);
    if (c.containsKey("response") && !out.equals(new String(build(c.get("response")), StandardCharsets.UTF_8))) {
      return "response " + out.substring(0, Math.min(300, out.length()));
    }
    return null;
  }

  /** build makes a corpus request: a string's text, base64 bytes, or parts with runs. */
  static byte[] build(Object spec) {
    if (spec instanceof String s) return s.getBytes(StandardCharsets.UTF_8);
    Map<?, ?> m = (Map<?, ?>) spec;
    if (m.get("base64") instanceof String b) return Base64.getDecoder().decode(b);
    StringBuilder out = new StringBuilder();
    for (Object part : (List<?>) m.get("parts")) {
      if (part instanceof String s) {
        out.append(s);
        continue;
      }
      Map<?, ?> run = (Map<?, ?>) part;
      String unit = (String) run.get("repeat");
      int times = ((Number) run.get("times")).intValue();
      String separator = run.get("separator") instanceof String sep ? sep : "";
      for (int i = 0; i < times; i++) {
        if (i > 0) out.append(separator);
        out.append(unit.contains("{i}") ? unit.replace("{i}", Integer.toString(i)) : unit);
      }
    }
    byte[] bytes = out.toString().getBytes(StandardCharsets.UTF_8);
    if (m.get("size") instanceof Number n && bytes.length != n.intValue()) {
      throw new IllegalStateException("built " + bytes.length + " bytes, want " + n);
    }
    return bytes;
  }
}
