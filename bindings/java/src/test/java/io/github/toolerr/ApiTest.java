package io.github.toolerr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.toolerr.abi.CallToolResult;
import io.github.toolerr.abi.Content;
import io.github.toolerr.abi.Contract;
import io.github.toolerr.abi.Diff;
import io.github.toolerr.abi.Envelope;
import io.github.toolerr.abi.FormatValidationRequest;
import io.github.toolerr.abi.Lockfile;
import io.github.toolerr.abi.ToolErrorEnvelope;
import io.github.toolerr.abi.ToolFailureRequest;
import io.github.toolerr.abi.ValidationEnvelope;
import io.github.toolerr.internal.Json;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The idiomatic API over the module: every call answers what the module says. */
class ApiTest {
  private final Toolerr t = Repo.TOOLERR;

  static final String NOT_FOUND =
      "<tool_error code=\"NOT_FOUND\" severity=\"error\">\n"
          + "<message>No invoice with that ID</message>\n"
          + "<recovery>List invoices first, then retry with a real ID</recovery>\n"
          + "<available_actions>\n  <action>billing.list_invoices</action>\n</available_actions>\n"
          + "<details>\n  <detail key=\"requestedId\">inv_999</detail>\n</details>\n"
          + "</tool_error>";

  static final Map<String, Object> SCHEMA =
      Map.of(
          "type", "object",
          "properties", Map.of("id", Map.of("type", "string", "pattern", "^inv_[0-9]{3}$")),
          "required", List.of("id"),
          "additionalProperties", false);

  @Test
  void builderRendersTheToolError() {
    CallToolResult r =
        Toolerr.toolError("NOT_FOUND", "No invoice with that ID")
            .suggest("List invoices first, then retry with a real ID")
            .actions("billing.list_invoices")
            .detail("requestedId", "inv_999")
            .render(t);
    assertTrue(r.isError());
    assertEquals(List.of(new Content("text", NOT_FOUND)), r.content());
    assertEquals(r, Toolerr.toolError("NOT_FOUND", "No invoice with that ID")
        .suggest("List invoices first, then retry with a real ID").actions("billing.list_invoices")
        .detail("requestedId", "inv_999").render(), "the shared host renders the same bytes");
  }

  @Test
  void warningRidesTheSuccessPathAndDetailsKeepTheirOrderAndTypes() {
    CallToolResult w = Toolerr.toolError("DEPRECATED", "page_size is deprecated").severity(Severity.WARNING).render(t);
    assertFalse(w.isError());
    String text =
        Toolerr.text(Toolerr.toolError("X", "m").detail("z", 1.5).detail("a", true).detail("n", 3).retryAfter(30).render(t));
    assertTrue(text.contains("<detail key=\"z\">1.5</detail>\n  <detail key=\"a\">true</detail>\n  <detail key=\"n\">3</detail>"), text);
    assertTrue(text.contains("<retry_after>30</retry_after>") || text.contains("retry_after"), text);
  }

  @Test
  void otherEnvelopesOfTheContract() {
    assertTrue(Toolerr.text(t.requiredField("id")).startsWith("<tool_error code=\"MISSING_REQUIRED_FIELD\">"));
    assertTrue(Toolerr.text(t.simpleError("Something failed.", "CONFLICT")).contains("code=\"CONFLICT\""));
    assertTrue(Toolerr.text(t.rateLimited(3, 60, 60, "billing.pay_invoice")).contains("RATE_LIMITED"));
    assertTrue(Toolerr.text(t.serverBusy("billing.export_invoices", 4, 2)).contains("SERVER_BUSY"));
    assertTrue(Toolerr.text(t.internalError("boom", "billing.x", null)).contains("<message>[billing.x] boom</message>"));
    assertEquals("a&lt;b", t.escape("a<b", "content"));
    CallToolResult unknown = t.unknownTool("get_invoice", List.of("billing.list_invoices", "billing.pay_invoice", "billing.get_invoice"));
    assertTrue(unknown.isError());
    assertEquals(
        "<tool_error code=\"UNKNOWN_ACTION\">\n<message>The tool \"get_invoice\" does not exist.</message>\n"
            + "<available_actions>billing.get_invoice, billing.pay_invoice, billing.list_invoices</available_actions>\n"
            + "<recovery>Choose a valid action from available_actions and call the tool again.</recovery>\n</tool_error>",
        Toolerr.text(unknown));
  }

  @Test
  void validateAnswersEmptyOrTheValidationError() {
    assertEquals(Optional.empty(), t.validate("billing.get_invoice", SCHEMA, Map.of("id", "inv_001")));
    CallToolResult invalid = t.validate("billing.get_invoice", SCHEMA, Map.of("id", "INV-1")).orElseThrow();
    assertTrue(invalid.isError());
    assertEquals(
        "<validation_error action=\"billing.get_invoice\">\n"
            + "<field name=\"id\">Does not match the pattern ^inv_[0-9]{3}$. You sent: 'INV-1'.</field>\n"
            + "<recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>\n"
            + "</validation_error>",
        Toolerr.text(invalid));
    // A JSON null argument is sent as null, not left out.
    assertTrue(t.validate("a", Map.of("type", "object"), null).isPresent());
    assertTrue(t.validate("a", new Json.Raw("{\"type\":\"null\"}"), null).isEmpty());
  }

  @Test
  void formatValidationRendersAValidatorsIssues() {
    CallToolResult r =
        t.formatValidation(
            FormatValidationRequest.of(
                    "billing.get_invoice",
                    List.of(Map.of("code", "invalid_type", "expected", "string", "received", "number", "path", List.of("id"), "message", "Expected string, received number")))
                .withArgs(Map.of("id", 5))
                .withDialect("zod"));
    assertTrue(Toolerr.text(r).startsWith("<validation_error action=\"billing.get_invoice\">\n<field name=\"id\">"), Toolerr.text(r));
  }

  @Test
  void aSmallRequestIsBuiltWithItsConstructor() {
    // Up to three members: the canonical constructor alone, null for an absent member, which the
    // codec leaves out.
    String request = Json.write(new ToolFailureRequest("boom", "billing.export_invoices", null));
    assertEquals("{\"message\":\"boom\",\"tool\":\"billing.export_invoices\"}", request);
    CallToolResult r = Json.decode(Json.parse(t.call("tool_failure", request)), CallToolResult.class);
    assertTrue(r.isError());
    assertTrue(Toolerr.text(r).contains("<message>[billing.export_invoices] boom</message>"), Toolerr.text(r));
  }

  @Test
  void parseAndCheckResultReadTheEnvelopesBack() {
    CallToolResult r = Toolerr.toolError("RATE_LIMITED", "Slow down.").retryAfter(30).render(t);
    ClientError e = assertThrows(ClientError.class, () -> t.checkResult(r));
    assertEquals("RATE_LIMITED", e.data().code());
    assertEquals(30.0, e.data().retryAfter());
    assertEquals("tool_error", e.data().kind());
    CallToolResult ok = new CallToolResult(List.of(new Content("text", "{}")), false);
    assertEquals(ok, t.checkResult(ok));

    Envelope env = t.parse("<tool_error code=\"X\"><message>m</message></tool_error>").orElseThrow();
    ToolErrorEnvelope te = assertInstanceOf(ToolErrorEnvelope.class, env);
    assertEquals(List.of("X", "error", "m"), List.of(te.code(), te.severity(), te.message()));
    assertEquals(Map.of(), te.details());
    assertEquals(Optional.empty(), t.parse("no envelope here"));

    CallToolResult invalid = t.validate("billing.get_invoice", SCHEMA, Map.of()).orElseThrow();
    ValidationEnvelope ve = assertInstanceOf(ValidationEnvelope.class, t.parse(invalid).orElseThrow());
    assertEquals("id", ve.fields().get(0).name());
    ClientError ce = assertThrows(ClientError.class, () -> t.checkResult(invalid));
    assertEquals("invalid arguments for billing.get_invoice: id", ce.getMessage().replaceFirst("^VALIDATION_ERROR: ", ""));
  }

  @Test
  void contractLockAndDiffAndAwareness() {
    Object lockText = Repo.json("examples/billing.lock.json");
    Lockfile relocked = t.contractLock(lockText);
    assertEquals(Json.write(lockText), Json.write(relocked), "the lockfile relocks to itself");
    assertEquals(1, relocked.lockfileVersion());

    Object old = Json.parse("[{\"name\":\"billing.pay_invoice\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"string\"}},\"required\":[\"id\"]}}]");
    Lockfile lock = t.contractLock(old);
    Map<String, Object> schema = Map.of("type", "object",
        "properties", Map.of("id", Map.of("type", "string"), "currency", Map.of("type", "string")),
        "required", List.of("id", "currency"));
    Object now = Map.of("tools", List.of(Map.of("name", "billing.pay_invoice", "inputSchema", schema)));
    Diff diff = t.contractDiff(lock, now);
    assertEquals("BREAKING", diff.maxSeverity());
    assertFalse(diff.backwardsCompatible());
    assertEquals("actions.billing.pay_invoice.input.currency", diff.deltas().get(0).field());
    assertEquals("Required property \"currency\" was added to input", diff.deltas().get(0).description());

    Contract contract = Contract.of("billing.pay_invoice").withDeltas(diff.deltas());
    CallToolResult r = t.validate("billing.pay_invoice", schema, Map.of("id", "inv_001"), contract).orElseThrow();
    assertTrue(Toolerr.text(r).contains("<change severity=\"BREAKING\" field=\"actions.billing.pay_invoice.input.currency\">"), Toolerr.text(r));
  }

  @Test
  void badRequestsAreTypedErrorsAndTheHostKeepsServing() {
    ToolerrException e = assertThrows(ToolerrException.class, () -> t.call("tool_error", "{\"code\":\"X\"}"));
    assertEquals(ToolerrException.INVALID_REQUEST, e.code());
    assertEquals("tool_error: \"message\" is required", e.getMessage());
    ToolerrException empty = assertThrows(ToolerrException.class, () -> Toolerr.toolError("X", "").render(t));
    assertEquals(ToolerrException.INVALID_REQUEST, empty.code());
    ToolerrException unknown = assertThrows(ToolerrException.class, () -> t.call("no_such_export", "{}"));
    assertEquals(ToolerrException.INVALID_REQUEST, unknown.code(), "any export name reaches the module, which answers");
    ToolerrException nan = assertThrows(ToolerrException.class, () -> Toolerr.toolError("X", "m").detail("k", Double.NaN).render(t));
    assertEquals("tool_error: \"details.k\" is NaN, which JSON cannot hold", nan.getMessage());
    assertTrue(t.call("tool_error", "{\"code\":\"X\",\"message\":\"ok\"}").startsWith("{\"content\""));
  }

  @Test
  void toolErrorExceptionCarriesTheRequest() {
    ToolErrorException x = Toolerr.toolError("FORBIDDEN", "No").severity(Severity.CRITICAL).exception();
    assertEquals("FORBIDDEN", x.code());
    assertTrue(Toolerr.text(x.render(t)).startsWith("<tool_error code=\"FORBIDDEN\" severity=\"critical\">"));
  }
}
