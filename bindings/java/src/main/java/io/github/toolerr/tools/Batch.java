package io.github.toolerr.tools;

import io.github.toolerr.Options;
import io.github.toolerr.Toolerr;
import io.github.toolerr.ToolerrException;
import io.github.toolerr.internal.Json;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;

/**
 * Batch is the binding's batch command (docs/CONTRACT.md, "Batch protocol"): JSON lines {@code
 * {"op": EXPORT, "input": ...}} on stdin, one line per request on stdout, in order: the response as
 * the module wrote it, or {@code {"error":{"code":...,"message":...}}}.
 *
 * <p>Lines are framed as every batch command frames them ({@link BatchLine}): a line ends at LF
 * only, JSON whitespace around it is dropped, a blank line gets no answer. A string {@code input}
 * is the raw request (its text, escapes decoded); any other is sent as the very bytes the line
 * holds; a missing one sends {@code {}}. A bad line gets an error line and the batch goes on.
 * Nothing else is written to stdout. Calls have no time bound: the batch checks answers, and a
 * work-budget vector takes seconds on a loaded machine.
 */
public final class Batch {
  /**
   * MAX_LINE is the longest line read whole: a request at the module's limit written as a JSON
   * string (each byte escaped at worst doubles), plus room for the op. A longer one is answered
   * REQUEST_TOO_LARGE without being kept.
   */
  static final int MAX_LINE = 2 * Options.MAX_REQUEST_BYTES + (1 << 20);

  private Batch() {}

  public static void main(String[] args) throws IOException {
    OutputStream stdout = System.out;
    System.setOut(new PrintStream(OutputStream.nullOutputStream())); // nothing else reaches stdout
    Toolerr toolerr = Toolerr.load(Options.defaults().withCallTimeout(Duration.ZERO));
    InputStream in = new BufferedInputStream(System.in, 1 << 16);
    byte[] line = new byte[1 << 16];
    int number = 0;
    while (true) {
      // One line, up to its LF (or the end of the input); a line over MAX_LINE is read to its end
      // and dropped.
      int n = 0;
      boolean tooLong = false;
      int c;
      while ((c = in.read()) >= 0 && c != '\n') {
        if (n == MAX_LINE) {
          tooLong = true;
          continue;
        }
        if (n == line.length) line = Arrays.copyOf(line, Math.min(MAX_LINE, n * 2));
        line[n++] = (byte) c;
      }
      if (c < 0 && n == 0 && !tooLong) return;
      number++;
      byte[] out;
      try {
        if (tooLong) {
          throw new ToolerrException(ToolerrException.REQUEST_TOO_LARGE, "batch: line " + number + " is longer than " + MAX_LINE + " bytes");
        }
        if (BatchLine.blank(line, 0, n)) {
          if (c < 0) return;
          continue;
        }
        BatchLine.Request request = BatchLine.read(line, 0, n, number);
        out = toolerr.call(request.op(), request.input());
      } catch (ToolerrException e) {
        out = ("{\"error\":{\"code\":" + Json.write(e.code()) + ",\"message\":" + Json.write(e.getMessage()) + "}}")
            .getBytes(StandardCharsets.UTF_8);
      } catch (RuntimeException e) { // one bad line never stops the batch
        out = ("{\"error\":{\"code\":\"INTERNAL\",\"message\":" + Json.write("batch: " + e) + "}}").getBytes(StandardCharsets.UTF_8);
      }
      stdout.write(out);
      stdout.write('\n');
      stdout.flush();
      if (c < 0) return;
    }
  }
}
