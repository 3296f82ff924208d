package io.github.toolerr.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.toolerr.Toolerr;
import io.github.toolerr.abi.GateResponse;
import io.github.toolerr.internal.Json;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** GatedStdio: the SDK reads every line the gate hands on, and the gate's answers reach stdout. */
class GatedStdioTest {
  static final Toolerr T = Toolerr.shared();

  /** The lines of the gate's vectors, each as the raw bytes a client would send. */
  static List<byte[]> vectorLines() throws IOException {
    Path file = Path.of("../../tests/vectors/v1/gate.json");
    Map<String, String> top = Json.members(Files.readString(file, StandardCharsets.UTF_8));
    List<byte[]> lines = new ArrayList<>();
    for (String caseText : Json.elements(top.get("cases"))) {
      String input = (String) Json.parse(Json.members(caseText).get("input"));
      if (input.indexOf('\n') < 0) lines.add(input.getBytes(StandardCharsets.UTF_8));
    }
    return lines;
  }

  /** through sends line to a GatedInput and returns what the SDK's reader reads, and what went to stdout. */
  static String[] through(byte[] line, Charset charset) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] in = new byte[line.length + 1];
    System.arraycopy(line, 0, in, 0, line.length);
    in[line.length] = '\n';
    var gated = new GatedStdio.GatedInput(T, new ByteArrayInputStream(in), out);
    // As the SDK reads its stdin: InputStreamReader with the platform's charset, readLine.
    String read = new BufferedReader(new InputStreamReader(gated, charset)).readLine();
    return new String[] {read, out.toString(StandardCharsets.UTF_8)};
  }

  @Test
  void everyLineTheGateHandsOnIsAMessageTheSdkReads() throws IOException {
    var mapper = McpJsonDefaults.getMapper();
    int handed = 0;
    List<String> failures = new ArrayList<>();
    for (byte[] line : vectorLines()) {
      GateResponse verdict = T.gate(line);
      for (Charset charset : List.of(StandardCharsets.UTF_8, StandardCharsets.US_ASCII)) {
        String[] got = through(line, charset);
        switch (verdict.verdict()) {
          case "pass", "rewrite" -> {
            handed++;
            assertEquals("", got[1], "nothing written to stdout for a line handed on");
            try {
              McpSchema.deserializeJsonRpcMessage(mapper, got[0]);
            } catch (Exception e) {
              failures.add(new String(line, StandardCharsets.UTF_8) + " (read as " + charset + "): " + e.getMessage());
            }
          }
          case "answer" -> {
            assertNull(got[0], "an answered line reached the SDK");
            assertEquals(verdict.response() + "\n", got[1]);
          }
          default -> {
            assertNull(got[0], "an ignored line reached the SDK");
            assertEquals("", got[1]);
          }
        }
      }
    }
    assertTrue(handed > 50, "only " + handed + " lines handed on");
    assertEquals(List.of(), failures);
  }

  @Test
  void textBeyondAsciiReachesTheSdkWhateverItsCharset() throws IOException {
    String line = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"t\",\"arguments\":{\"id\":\"é😀\"}}}";
    String read = through(line.getBytes(StandardCharsets.UTF_8), StandardCharsets.US_ASCII)[0];
    var message = (McpSchema.JSONRPCRequest) McpSchema.deserializeJsonRpcMessage(McpJsonDefaults.getMapper(), read);
    @SuppressWarnings("unchecked")
    var params = (Map<String, Object>) message.params();
    assertEquals(Map.of("id", "é😀"), params.get("arguments"));
  }

  @Test
  void theSessionGoesOnAfterLinesTheGateAnswersOrIgnores() throws IOException {
    String deep = "[".repeat(300) + "]".repeat(300);
    String input =
        "not json\n"
            + "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"t\",\"arguments\":{\"id\":" + deep + "}}}\n"
            + "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"ping\"}\n";
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    var gated = new GatedStdio.GatedInput(T, new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)), out);
    BufferedReader reader = new BufferedReader(new InputStreamReader(gated, StandardCharsets.UTF_8));
    assertEquals("{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"ping\"}", reader.readLine());
    assertNull(reader.readLine());
    String answered = out.toString(StandardCharsets.UTF_8);
    assertTrue(answered.startsWith("{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"<validation_error"), answered);
    assertTrue(answered.contains("nested too deeply"), answered);
  }
}
