package io.github.toolerr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.toolerr.internal.Json;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The host policy of abi/ABI.md ("Host policy"): the defaults are the table's, and a Toolerr
 * applies each rule (memory cap, time per call, request size, retirement).
 */
class PolicyTest {
  private static final String OK_EXPORT = "required_field";
  private static final String OK_REQUEST = "{\"field\":\"id\"}";

  /** policyDefaults reads the named rows of the first table of the "## Host policy" section. */
  static Map<String, Long> policyDefaults() {
    String text = Repo.read("abi/ABI.md");
    int at = text.indexOf("\n## Host policy\n");
    assertTrue(at >= 0, "ABI.md has no \"## Host policy\" section");
    String section = text.substring(at + 1);
    int end = section.indexOf("\n## ", 3);
    if (end > 0) section = section.substring(0, end);
    Map<String, Long> out = new LinkedHashMap<>();
    boolean inTable = false;
    for (String line : section.split("\n")) {
      if (!line.startsWith("|")) {
        if (inTable) break;
        continue;
      }
      inTable = true;
      String[] cells = line.substring(1, line.length() - 1).split("\\|", -1);
      assertEquals(4, cells.length, "host policy row " + line);
      String name = cells[1].trim();
      String value = cells[2].trim();
      if (cells[0].trim().equals("rule") || cells[0].trim().startsWith("---") || name.isEmpty()) continue;
      assertTrue(name.matches("`[A-Za-z]+`"), "name " + name);
      out.put(name.substring(1, name.length() - 1), Long.parseLong(value));
    }
    return out;
  }

  @Test
  void defaultsAreTheAbiTable() {
    Map<String, Long> table = policyDefaults();
    assertEquals(
        Map.of("memoryMaxPages", 8192L, "callTimeoutMs", 10000L, "maxRequestBytes", 4194304L, "retireMemoryPages", 1024L).keySet(),
        table.keySet());
    Options d = Options.defaults();
    assertEquals(table.get("memoryMaxPages"), (long) d.memoryMaxPages());
    assertEquals(table.get("callTimeoutMs"), d.callTimeout().toMillis());
    assertEquals(table.get("maxRequestBytes"), (long) Options.MAX_REQUEST_BYTES);
    assertEquals(table.get("retireMemoryPages"), (long) Options.RETIRE_MEMORY_PAGES);
    assertEquals(Runtime.getRuntime().availableProcessors(), d.maxInstances());
    assertEquals(Repo.TOOLERR.description().limits().maxRequestBytes(), Options.MAX_REQUEST_BYTES);
  }

  @Test
  void requestOverTheLimitIsRefusedUnsent() {
    byte[] big = new byte[Options.MAX_REQUEST_BYTES + 1];
    ToolerrException e = assertThrows(ToolerrException.class, () -> Repo.TOOLERR.call("parse", big));
    assertEquals(ToolerrException.REQUEST_TOO_LARGE, e.code());
    assertEquals("parse: request is 4194305 bytes, over the limit of 4194304", e.getMessage());
  }

  @Test
  void memoryCapTrapsTheCallAndTheHostKeepsServing() {
    // Room to start (the pages the init image holds) and 1 MiB more, not enough to decode a 3 MiB
    // request.
    int start;
    try (Toolerr fresh = Toolerr.load(Options.defaults().withMaxInstances(1))) {
      start = ((Number) ((Map<?, ?>) Json.parse(fresh.call("describe", "{\"memory\":true}"))).get("memoryPages")).intValue();
    }
    try (Toolerr small = Toolerr.load(Options.defaults().withMemoryMaxPages(start + 16).withMaxInstances(1))) {
      String request = "{\"text\":\"" + "a".repeat(3 << 20) + "\"}";
      ToolerrException e = assertThrows(ToolerrException.class, () -> small.call("parse", request));
      assertEquals(ToolerrException.TRAP, e.code(), e.toString());
      assertTrue(e.getMessage().startsWith("parse: the module trapped"), e.getMessage());
      assertTrue(small.call(OK_EXPORT, OK_REQUEST).startsWith("{\"content\""));
    }
  }

  @Test
  @SuppressWarnings("unchecked")
  void callPastItsTimeIsTimeoutAndTheNextCallIsAnswered() {
    // A validate whose schema uses a $ref twice at each of 30 levels: refused at its work budget
    // after millions of validator steps, far longer than 100 ms on any engine (a few tenths of a
    // second compiled). A request refused early (over the value limit, say) would answer in time
    // on a warm JVM. A new instance (the one the timeout discarded is replaced) takes a few
    // milliseconds.
    String slow = slowValidate();
    try (Toolerr quick = Toolerr.load(Options.defaults().withCallTimeout(Duration.ofMillis(100)).withMaxInstances(1))) {
      ToolerrException e = assertThrows(ToolerrException.class, () -> quick.call("validate", slow));
      assertEquals(ToolerrException.TIMEOUT, e.code(), e.toString());
      assertEquals("validate: the call ran out of time", e.getMessage());
      assertFalse(Thread.currentThread().isInterrupted(), "the timeout left the caller interrupted");
      // The next call may itself time out on a loaded machine: allow tries, each failure TIMEOUT.
      String answer = null;
      for (int i = 0; i < 20 && answer == null; i++) {
        try {
          answer = quick.call(OK_EXPORT, OK_REQUEST);
        } catch (ToolerrException again) {
          assertEquals(ToolerrException.TIMEOUT, again.code());
        }
      }
      assertTrue(answer != null && answer.startsWith("{\"content\""));
    }
  }

  /** slowValidate is the validate request of callPastItsTimeIsTimeoutAndTheNextCallIsAnswered. */
  @SuppressWarnings("unchecked")
  private static String slowValidate() {
    String wanted = "error a $ref used twice at each of 30 levels passes the work budget";
    for (Object c : (java.util.List<Object>) ((Map<String, Object>) Repo.json("tests/vectors/v1/validate.json")).get("cases")) {
      Map<String, Object> vector = (Map<String, Object>) c;
      if (wanted.equals(vector.get("description"))) return Json.write(vector.get("input"));
    }
    throw new AssertionError("no vector " + wanted);
  }

  @Test
  void aShortDeadlineFiresWhileALongerOneWaits() throws Exception {
    // One thread watches every call's deadline and sleeps until the earliest it knows: a call with
    // a shorter time, started while a longer one runs, must wake it.
    String slow = slowValidate();
    try (Toolerr patient = Toolerr.load(Options.defaults().withCallTimeout(Duration.ofSeconds(60)).withMaxInstances(1));
        Toolerr quick = Toolerr.load(Options.defaults().withCallTimeout(Duration.ofMillis(100)).withMaxInstances(1))) {
      java.util.concurrent.CompletableFuture<String> longer =
          java.util.concurrent.CompletableFuture.supplyAsync(
              () -> {
                try {
                  return patient.call("validate", slow);
                } catch (ToolerrException e) {
                  return e.code();
                }
              });
      Thread.sleep(50);
      ToolerrException e = assertThrows(ToolerrException.class, () -> quick.call("validate", slow));
      assertEquals(ToolerrException.TIMEOUT, e.code(), e.toString());
      assertFalse(ToolerrException.TIMEOUT.equals(longer.get()), "the longer call ran out of its 60 s");
    }
  }

  @Test
  void aCallThatRunsOutOfItsThreadsStackIsAnswered() throws Exception {
    // Arguments nested 250 levels under a recursive schema: within the module's limits (256), and
    // more than a 256 KiB thread stack holds of the module's frames.
    StringBuilder request =
        new StringBuilder(
            "{\"action\":\"deep\",\"schema\":{\"type\":\"object\",\"properties\":{\"c\":{\"$ref\":\"#\"}},\"additionalProperties\":false},\"args\":");
    request.append("{\"x\":1,\"c\":".repeat(250)).append("{}").append("}".repeat(250)).append('}');
    String[] out = new String[1];
    Throwable[] failed = new Throwable[1];
    try (Toolerr t = Toolerr.load(Options.defaults().withMaxInstances(1))) {
      Thread small =
          new Thread(
              null,
              () -> {
                try {
                  out[0] = t.call("validate", request.toString());
                } catch (Throwable e) {
                  failed[0] = e;
                }
              },
              "small-stack",
              256 << 10);
      small.start();
      small.join();
      assertEquals(null, failed[0]);
      assertTrue(out[0].startsWith("{\"valid\":false,\"result\":"), out[0]);
      assertTrue(t.call(OK_EXPORT, OK_REQUEST).startsWith("{\"content\""));
    }
  }

  @Test
  void interruptedCallerGetsCancelledAndKeepsItsInterrupt() {
    try (Toolerr t = Toolerr.load(Options.defaults().withMaxInstances(1))) {
      Thread.currentThread().interrupt();
      ToolerrException e = assertThrows(ToolerrException.class, () -> t.call(OK_EXPORT, OK_REQUEST));
      assertTrue(Thread.interrupted(), "the interrupt status was lost");
      assertEquals(ToolerrException.CANCELLED, e.code());
      assertTrue(t.call(OK_EXPORT, OK_REQUEST).startsWith("{\"content\""));
    }
  }

  @Test
  void instanceIsRetiredByWhatItGrewToAndKeptAfterARefusal() {
    try (Toolerr t = Toolerr.load(Options.defaults().withMaxInstances(1))) {
      assertEquals(1, t.idleInstances()); // the one describe started
      assertThrows(ToolerrException.class, () -> t.call("tool_error", "{\"code\":\"X\"}"));
      assertEquals(1, t.idleInstances(), "a refusal retired the instance");
      // A 4 MB request that grows the instance little: kept (not retired by its size).
      String large = "{\"text\":\"" + "&amp;".repeat(800_000) + "\"}";
      t.call("parse", large.getBytes(StandardCharsets.UTF_8));
      assertEquals(1, t.idleInstances(), "the instance that served a large request it barely grew for was retired");
      // A request whose answer grows the instance past retireMemoryPages: retired.
      String grows = "{\"field\":\"" + "f".repeat(4_000_000) + "\"}";
      t.call("required_field", grows.getBytes(StandardCharsets.UTF_8));
      assertEquals(0, t.idleInstances(), "the instance grown past " + Options.RETIRE_MEMORY_PAGES + " pages was kept");
      assertTrue(t.call(OK_EXPORT, OK_REQUEST).startsWith("{\"content\""));
      assertEquals(1, t.idleInstances());
    }
  }

  @Test
  @SuppressWarnings("unchecked")
  void smallRequestsThatGrowMemoryRetireTheInstance() {
    // The memory is read after every call, not only after one over 64 KiB: forty small requests in
    // a row that each leave megabytes of garbage (collected only between calls) once grew an
    // instance to a 2048-page cap, where a call that needed more trapped. The request: the
    // contract_diff vector every host sends so.
    String wanted = "error a long string among the shared subschemas: refused at the budget after megabytes of work (hosts send it forty times in a row)";
    Map<String, Object> file = (Map<String, Object>) Repo.json("tests/vectors/v1/contract_diff.json");
    Map<String, Object> found = null;
    for (Object c : (java.util.List<Object>) file.get("cases")) {
      if (wanted.equals(((Map<String, Object>) c).get("description"))) found = (Map<String, Object>) c;
    }
    assertTrue(found != null, wanted);
    String body = (String) found.get("input");
    String message = (String) ((Map<String, Object>) found.get("error")).get("message");
    assertTrue(body.length() < Options.MEMORY_CHECK_BYTES);
    try (Toolerr t = Toolerr.load(Options.defaults().withMemoryMaxPages(2048).withMaxInstances(1))) {
      for (int i = 1; i <= 40; i++) {
        ToolerrException e = assertThrows(ToolerrException.class, () -> t.call("contract_diff", body));
        assertEquals(ToolerrException.REQUEST_TOO_LARGE, e.code(), "call " + i + ": " + e);
        assertEquals(message, e.getMessage(), "call " + i);
      }
    }
  }

  @Test
  void instancesAreBoundedAndSharedAcrossThreads() throws InterruptedException {
    try (Toolerr t = Toolerr.load(Options.defaults().withMaxInstances(2))) {
      String want = t.call(OK_EXPORT, OK_REQUEST);
      AtomicInteger wrong = new AtomicInteger();
      Thread[] threads = new Thread[8];
      for (int i = 0; i < threads.length; i++) {
        int n = i;
        threads[i] =
            new Thread(
                () -> {
                  for (int j = 0; j < 300; j++) {
                    String field = "f" + n + "_" + j;
                    String got = t.call(OK_EXPORT, "{\"field\":\"" + field + "\"}");
                    if (!got.equals(want.replace("\\\"id\\\"", "\\\"" + field + "\\\""))) wrong.incrementAndGet();
                  }
                });
        threads[i].start();
      }
      for (Thread th : threads) th.join();
      assertEquals(0, wrong.get());
      assertTrue(t.idleInstances() <= 2, t.idleInstances() + " instances for maxInstances 2");
    }
  }
}
