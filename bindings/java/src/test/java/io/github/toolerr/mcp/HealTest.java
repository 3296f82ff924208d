package io.github.toolerr.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.toolerr.Severity;
import io.github.toolerr.Toolerr;
import io.github.toolerr.ToolerrException;
import io.github.toolerr.abi.Envelope;
import io.github.toolerr.abi.ValidationEnvelope;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.server.McpServerFeatures.AsyncToolSpecification;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/** Heal on the SDK's own tool specifications, sync and async, through every row of its table. */
class HealTest {
  static final Toolerr T = Toolerr.shared();
  static final String SCHEMA =
      "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"id\"],"
          + "\"properties\":{\"id\":{\"type\":\"string\",\"pattern\":\"^inv_[0-9]{3}$\"}}}";
  static final String INTERNAL =
      "<tool_error code=\"INTERNAL_ERROR\" severity=\"error\">\n<message>[billing.get_invoice] exporter backend unavailable</message>\n"
          + "<recovery>This is an unexpected server-side failure, not a problem with your arguments. Do not blindly retry the same call: tell the user what failed, or try a different approach.</recovery>\n"
          + "</tool_error>";

  static McpSchema.Tool tool() {
    return McpSchema.Tool.builder("billing.get_invoice", McpJsonDefaults.getMapper(), SCHEMA).build();
  }

  final AtomicInteger handled = new AtomicInteger();

  /** The handler: inv_001 succeeds, inv_500 throws a plain exception, inv_299 warns, others are NOT_FOUND. */
  CallToolResult handle(CallToolRequest request) {
    handled.incrementAndGet();
    String id = (String) request.arguments().get("id");
    switch (id) {
      case "inv_001" -> {
        return CallToolResult.builder().addTextContent("{\"id\":\"inv_001\"}").isError(false).build();
      }
      case "inv_500" -> throw new IllegalStateException("exporter backend unavailable");
      case "inv_299" -> throw Toolerr.toolError("DEPRECATED", "old id").severity(Severity.WARNING).exception();
      default -> throw Toolerr.toolError("NOT_FOUND", "No invoice with that ID").detail("requestedId", id).exception();
    }
  }

  static CallToolRequest request(Map<String, Object> args) {
    return new CallToolRequest("billing.get_invoice", args, null);
  }

  static Map<String, Object> args(Object... kv) {
    Map<String, Object> m = new HashMap<>();
    for (int i = 0; i < kv.length; i += 2) m.put((String) kv[i], kv[i + 1]);
    return m;
  }

  static String text(CallToolResult r) {
    return ((TextContent) r.content().get(0)).text();
  }

  void checkEveryRow(java.util.function.Function<CallToolRequest, CallToolResult> call) {
    for (Map<String, Object> bad : List.of(args(), args("id", 5), args("id", "INV-1"), args("id", null), args("id", "inv_001", "extra", 1))) {
      int before = handled.get();
      CallToolResult r = call.apply(request(bad));
      assertTrue(r.isError(), bad.toString());
      Envelope env = T.parse(Heal.fromMcp(r)).orElseThrow();
      assertTrue(env instanceof ValidationEnvelope v && v.action().equals("billing.get_invoice"), text(r));
      assertEquals(before, handled.get(), "the handler ran on arguments the schema refuses: " + bad);
    }
    ValidationEnvelope nullId = (ValidationEnvelope) T.parse(Heal.fromMcp(call.apply(request(args("id", null))))).orElseThrow();
    assertEquals(List.of("id"), nullId.fields().stream().map(f -> f.name()).toList());

    CallToolResult ok = call.apply(request(args("id", "inv_001")));
    assertFalse(ok.isError());
    assertEquals("{\"id\":\"inv_001\"}", text(ok));

    CallToolResult notFound = call.apply(request(args("id", "inv_404")));
    assertTrue(notFound.isError());
    assertEquals(Toolerr.text(Toolerr.toolError("NOT_FOUND", "No invoice with that ID").detail("requestedId", "inv_404").render(T)), text(notFound));

    CallToolResult warning = call.apply(request(args("id", "inv_299")));
    assertFalse(warning.isError());
    assertTrue(text(warning).startsWith("<tool_error code=\"DEPRECATED\" severity=\"warning\">"));

    CallToolResult internal = call.apply(request(args("id", "inv_500")));
    assertTrue(internal.isError());
    assertEquals(INTERNAL, text(internal));
  }

  @Test
  void syncSpecificationsAreHealed() {
    var spec = SyncToolSpecification.builder().tool(tool()).callHandler((exchange, req) -> handle(req)).build();
    List<SyncToolSpecification> healed = Heal.heal(spec);
    assertEquals(spec.tool(), healed.get(0).tool(), "the tool is advertised as written");
    checkEveryRow(req -> healed.get(0).callHandler().apply(null, req));
  }

  @Test
  void asyncSpecificationsAreHealed() {
    var spec =
        AsyncToolSpecification.builder()
            .tool(tool())
            .callHandler(
                (exchange, req) ->
                    "inv_404".equals(req.arguments().get("id"))
                        ? Mono.error(Toolerr.toolError("NOT_FOUND", "No invoice with that ID").detail("requestedId", "inv_404").exception())
                        : Mono.fromCallable(() -> handle(req)))
            .build();
    List<AsyncToolSpecification> healed = Heal.heal(spec);
    checkEveryRow(req -> healed.get(0).callHandler().apply(null, req).block());
  }

  @Test
  void aThrowingAsyncHandlerIsHealedToo() {
    var spec =
        AsyncToolSpecification.builder()
            .tool(tool())
            .callHandler((exchange, req) -> {
              throw new IllegalStateException("exporter backend unavailable");
            })
            .build();
    CallToolResult r = Heal.heal(spec).get(0).callHandler().apply(null, request(args("id", "inv_001"))).block();
    assertEquals(INTERNAL, text(r));
  }

  @Test
  void anExceptionWithoutMessageIsNamedByItsClass() {
    var spec = SyncToolSpecification.builder().tool(tool()).callHandler((exchange, req) -> {
      throw new UnsupportedOperationException();
    }).build();
    CallToolResult r = Heal.heal(spec).get(0).callHandler().apply(null, request(args("id", "inv_001")));
    assertTrue(text(r).contains("<message>[billing.get_invoice] UnsupportedOperationException</message>"), text(r));
  }

  @Test
  void sdkVersionsOutside2xAreRefused() {
    assertEquals(Heal.TESTED, Heal.sdkVersion());
    Heal.checkVersion("2.1.0");
    Heal.checkVersion("2.0.0-M3");
    for (String v : new String[] {"1.1.5", "3.0.0", null}) {
      ToolerrException e = assertThrows(ToolerrException.class, () -> Heal.checkVersion(v));
      assertEquals(ToolerrException.UNSUPPORTED_MCP, e.code());
      assertTrue(e.getMessage().startsWith("toolerr: heal supports io.modelcontextprotocol.sdk:mcp-core >=2.0.0 <3 (tested with 2.1.0), found "), e.getMessage());
    }
  }
}
