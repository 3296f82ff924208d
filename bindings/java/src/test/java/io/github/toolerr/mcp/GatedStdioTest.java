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

  /**
   * session runs a real SDK server (sync, healed tools) on gated streams, sends the client's lines
   * (initialize first) and returns the server's answers, one per line, once the session ends.
   */
  static List<String> session(Heal.UnknownTool mode, String... calls) throws Exception {
    var mapper = McpJsonDefaults.getMapper();
    var spec =
        io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification.builder()
            .tool(HealTest.tool())
            .callHandler((exchange, req) -> McpSchema.CallToolResult.builder().addTextContent("ok").build())
            .build();
    StringBuilder input = new StringBuilder();
    input.append("{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"0\"}}}\n");
    input.append("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
    for (String call : calls) input.append(call).append('\n');
    var in = new java.io.PipedInputStream(1 << 16);
    var client = new java.io.PipedOutputStream(in);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    var server =
        io.modelcontextprotocol.server.McpServer.sync(GatedStdio.provider(T, mapper, in, out, mode))
            .serverInfo("t", "0")
            .validateToolInputs(false)
            .tools(Heal.heal(spec))
            .build();
    client.write(input.toString().getBytes(StandardCharsets.UTF_8));
    client.flush();
    long until = System.nanoTime() + 20_000_000_000L;
    List<String> lines;
    do {
      Thread.sleep(20);
      synchronized (out) {
        lines = out.toString(StandardCharsets.UTF_8).lines().toList();
      }
    } while (lines.size() < calls.length + 1 && System.nanoTime() < until);
    client.close();
    server.closeGracefully();
    return lines;
  }

  @Test
  void aCallOfAToolTheServerDoesNotHaveGetsUnknownAction() throws Exception {
    List<String> lines =
        session(
            Heal.UnknownTool.ENVELOPE,
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"billing.get_invoices\",\"arguments\":{}}}",
            "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"billing.get_invoice\",\"arguments\":{\"id\":\"inv_001\"}}}",
            "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"no/such-method\"}");
    assertEquals(4, lines.size(), String.join("\n", lines));
    // The server answers in any order: by id.
    Map<Object, String> byId = new java.util.HashMap<>();
    for (String line : lines) byId.put(((Map<?, ?>) Json.parse(line)).get("id"), line);
    var unknown = (Map<?, ?>) Json.parse(byId.get(1L));
    assertEquals(1L, unknown.get("id"));
    var result = (Map<?, ?>) unknown.get("result");
    assertEquals(Boolean.TRUE, result.get("isError"), byId.get(1L));
    String text = (String) ((Map<?, ?>) ((List<?>) result.get("content")).get(0)).get("text");
    assertTrue(text.startsWith("<tool_error code=\"UNKNOWN_ACTION\">\n<message>The tool \"billing.get_invoices\" does not exist.</message>\n<available_actions>billing.get_invoice"), text);
    assertEquals(T.unknownTool("billing.get_invoices", Heal.healedTools(T)).content().get(0).text(), text);
    // An ordinary call and another of the SDK's errors pass as the SDK wrote them.
    assertTrue(byId.get(2L).contains("\"text\":\"ok\""), byId.get(2L));
    assertTrue(byId.get(3L).contains("\"error\"") && byId.get(3L).contains("-32601"), byId.get(3L));
  }

  @Test
  void theSdkOptionKeepsTheSdksAnswerToAnUnknownTool() throws Exception {
    List<String> lines =
        session(
            Heal.UnknownTool.SDK,
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"billing.get_invoices\",\"arguments\":{}}}");
    assertEquals(2, lines.size(), String.join("\n", lines));
    String answer = lines.stream().filter(l -> l.contains("\"id\":1,")).findFirst().orElseThrow();
    assertTrue(answer.contains("\"error\"") && answer.contains(GatedStdio.SDK_UNKNOWN_TOOL), answer);
  }
}
