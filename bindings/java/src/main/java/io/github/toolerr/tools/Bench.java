package io.github.toolerr.tools;

import io.github.toolerr.Toolerr;
import io.github.toolerr.internal.Json;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;

/**
 * Bench measures the binding on the requests every engine is measured on (tests/bench/requests.json),
 * as a server uses it: one Toolerr, raw calls one after another on one thread.
 *
 * <pre>
 * java -cp ... io.github.toolerr.tools.Bench ENGINE REQUESTS_JSON    per-call times
 * java -cp ... io.github.toolerr.tools.Bench --first-result          load, one tool_error, exit
 * </pre>
 *
 * stdout gets one JSON line per op, {@code {"engine","op","ns_per_call","calls_per_sec"}}, and
 * nothing else; progress goes to stderr. Per op: a warm-up of {@code TOOLERR_BENCH_WARMUP}
 * seconds (default 10: the JVM compiles the module's code to machine code as it runs, in tiers,
 * and its largest methods take C2 seconds),
 * then about {@code TOOLERR_BENCH_SECONDS} (default 1.5) of calls in 5 timed batches; the median
 * batch's time per call. {@code --first-result} is for the first result of a fresh JVM, which
 * tests/bench times from outside, process start included: it loads the module, renders one
 * tool_error, prints "ok" and exits.
 */
public final class Bench {
  private Bench() {}

  private static final String[] OPS = {"tool_error", "format_validation", "parse", "validate"};
  private static final int BATCHES = 5;

  public static void main(String[] args) throws IOException {
    if (args.length == 1 && args[0].equals("--first-result")) {
      Toolerr t = Toolerr.load();
      String out = t.call("tool_error", "{\"code\":\"NOT_FOUND\",\"message\":\"No invoice with that ID\"}");
      System.out.println(out.startsWith("{\"content\"") ? "ok" : "unexpected: " + out);
      System.exit(0);
    }
    if (args.length != 2) {
      System.err.println("usage: Bench ENGINE REQUESTS_JSON | Bench --first-result");
      System.exit(64);
    }
    String engine = args[0];
    Map<String, String> requests = Json.members(Files.readString(Path.of(args[1]), StandardCharsets.UTF_8));
    double seconds = env("TOOLERR_BENCH_SECONDS", 1.5);
    double warmup = env("TOOLERR_BENCH_WARMUP", 10);
    PrintStream out = System.out;
    Toolerr t = Toolerr.load();
    for (String op : OPS) {
      byte[] request = Json.compact(requests.get(op)).getBytes(StandardCharsets.UTF_8);
      Runnable once = () -> t.call(op, request);
      long end = System.nanoTime() + (long) (warmup * 1e9);
      int calls = 0;
      long start = System.nanoTime();
      while (System.nanoTime() < end) {
        once.run();
        calls++;
      }
      double perCall = (System.nanoTime() - start) / (double) calls;
      int perBatch = Math.max(1, (int) (seconds * 1e9 / BATCHES / perCall));
      double[] batch = new double[BATCHES];
      for (int b = 0; b < BATCHES; b++) {
        long s = System.nanoTime();
        for (int i = 0; i < perBatch; i++) once.run();
        batch[b] = (System.nanoTime() - s) / (double) perBatch;
      }
      double mean = Arrays.stream(batch).average().orElse(0);
      Arrays.sort(batch);
      double median = batch[BATCHES / 2];
      System.err.printf("bench: %s %s: median %.1f us, mean %.1f us, %d calls a batch%n", engine, op, median / 1e3, mean / 1e3, perBatch);
      out.printf(
          "{\"engine\":%s,\"op\":\"%s\",\"ns_per_call\":%.1f,\"calls_per_sec\":%.0f}%n",
          Json.write(engine), op, median, 1e9 / median);
    }
    out.flush();
  }

  private static double env(String name, double fallback) {
    try {
      double v = Double.parseDouble(System.getenv().getOrDefault(name, ""));
      return Double.isFinite(v) && v > 0 ? v : fallback;
    } catch (NumberFormatException e) {
      return fallback;
    }
  }
}
