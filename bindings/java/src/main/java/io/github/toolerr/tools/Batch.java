package io.github.toolerr.tools;

import io.github.toolerr.Options;
import io.github.toolerr.Toolerr;
import io.github.toolerr.ToolerrException;
import io.github.toolerr.internal.Json;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

/**
 * Batch is the binding's batch command (docs/CONTRACT.md, "Batch protocol"): JSON lines {@code
 * {"op": EXPORT, "input": ...}} on stdin, one line per request on stdout, in order: the response as
 * the module wrote it, or {@code {"error":{"code":...,"message":...}}}.
 *
 * <p>A string {@code input} is the raw request (its text is sent as it is); any other is sent as
 * the very JSON text the line holds (key order, number spelling and escapes as written); a missing
 * one sends {@code {}}. A bad line gets an error line and the batch goes on. Nothing else is
 * written to stdout. Calls have no time bound: the batch checks answers, and a work-budget vector
 * takes seconds on a loaded machine.
 */
public final class Batch {
  private Batch() {}

  public static void main(String[] args) throws IOException {
    OutputStream stdout = System.out;
    System.setOut(new PrintStream(OutputStream.nullOutputStream())); // nothing else reaches stdout
    Toolerr toolerr = Toolerr.load(Options.defaults().withCallTimeout(Duration.ZERO));
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    StringBuilder out = new StringBuilder();
    String line;
    int number = 0;
    while ((line = in.readLine()) != null) {
      number++;
      if (line.isBlank()) continue;
      out.setLength(0);
      try {
        Map<String, String> members;
        try {
          members = Json.members(line);
        } catch (Json.Failure e) {
          throw new ToolerrException(
              ToolerrException.INVALID_REQUEST, "batch: line " + number + " is not {\"op\",\"input\"}: " + e.getMessage());
        }
        String op = members.containsKey("op") ? String.valueOf(Json.parse(members.get("op"))) : "";
        if (!members.containsKey("op") || op.isEmpty() || !members.get("op").trim().startsWith("\"")) {
          throw new ToolerrException(ToolerrException.INVALID_REQUEST, "batch: line " + number + ": \"op\" must be a non-empty string");
        }
        String input = members.getOrDefault("input", "{}");
        String request = input.trim().startsWith("\"") ? (String) Json.parse(input) : input;
        out.append(toolerr.call(op, request));
      } catch (ToolerrException e) {
        out.append("{\"error\":{\"code\":").append(Json.write(e.code())).append(",\"message\":").append(Json.write(e.getMessage())).append("}}");
      }
      out.append('\n');
      stdout.write(out.toString().getBytes(StandardCharsets.UTF_8));
      stdout.flush();
    }
  }
}
