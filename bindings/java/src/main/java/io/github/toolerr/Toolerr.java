package io.github.toolerr;

import io.github.toolerr.abi.Abi;
import io.github.toolerr.abi.CallToolResult;
import io.github.toolerr.abi.CheckResultRequest;
import io.github.toolerr.abi.ClientErrorData;
import io.github.toolerr.abi.Content;
import io.github.toolerr.abi.Contract;
import io.github.toolerr.abi.ContractDiffRequest;
import io.github.toolerr.abi.ContractLockRequest;
import io.github.toolerr.abi.Description;
import io.github.toolerr.abi.Diff;
import io.github.toolerr.abi.Envelope;
import io.github.toolerr.abi.EscapeRequest;
import io.github.toolerr.abi.EscapeResponse;
import io.github.toolerr.abi.FormatValidationRequest;
import io.github.toolerr.abi.GateResponse;
import io.github.toolerr.abi.InternalErrorRequest;
import io.github.toolerr.abi.Lockfile;
import io.github.toolerr.abi.ParseRequest;
import io.github.toolerr.abi.RateLimitedRequest;
import io.github.toolerr.abi.RequiredFieldRequest;
import io.github.toolerr.abi.ServerBusyRequest;
import io.github.toolerr.abi.SimpleErrorRequest;
import io.github.toolerr.abi.ToolErrorEnvelope;
import io.github.toolerr.abi.ToolErrorRequest;
import io.github.toolerr.abi.UnknownToolRequest;
import io.github.toolerr.abi.ValidateRequest;
import io.github.toolerr.abi.ValidateResponse;
import io.github.toolerr.abi.ValidationEnvelope;
import io.github.toolerr.internal.Engine;
import io.github.toolerr.internal.Json;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Toolerr runs MCP Fusion's error contract from the one toolerr.wasm every toolerr binding loads:
 * it builds a request, calls the module and wraps the answer; the module does all the rendering,
 * validating and parsing.
 *
 * <pre>{@code
 * Toolerr toolerr = Toolerr.load();          // sha256 and ABI major checked; a pool of instances
 * CallToolResult r = Toolerr.toolError("NOT_FOUND", "No invoice with that ID").render(toolerr);
 * }</pre>
 *
 * <h2>Notes</h2>
 *
 * <ul>
 *   <li>A Toolerr is safe for concurrent use: it pools module instances, one per concurrent call,
 *       up to {@link Options#maxInstances()}; load one and share it ({@link #shared()} is the
 *       process-wide one).
 *   <li>It applies the host policy of abi/ABI.md: memory capped per instance, a time bound per
 *       call, requests over 4 MiB refused unsent; an instance that traps, times out or whose
 *       memory grew past 1024 pages (64 MiB) is discarded, and the next call gets a new one.
 *   <li>Every failure is a {@link ToolerrException} with an ABI code.
 * </ul>
 */
public final class Toolerr implements AutoCloseable {
  /** ABI_MAJOR is the ABI major this binding speaks; load refuses a module of another. */
  public static final int ABI_MAJOR = Abi.MAJOR;

  private final Engine engine;
  private final Description description;
  private volatile boolean shared;

  private Toolerr(Engine engine) {
    this.engine = engine;
    try {
      byte[] described = engine.callUnbounded("describe", "{}".getBytes(StandardCharsets.UTF_8));
      this.description = Json.decode(Json.parse(new String(described, StandardCharsets.UTF_8)), Description.class);
    } catch (RuntimeException e) {
      engine.close();
      throw e instanceof ToolerrException t
          ? new ToolerrException(ToolerrException.LOAD, "toolerr: describe: " + t.getMessage(), t)
          : e;
    }
    String abi = description.abiVersion();
    String major = abi == null ? "" : abi.split("\\.", 2)[0];
    if (!major.equals(Integer.toString(ABI_MAJOR))) {
      engine.close();
      throw new ToolerrException(
          ToolerrException.LOAD,
          "toolerr: module ABI \"" + abi + "\" is not supported by this binding (ABI major " + ABI_MAJOR + ")");
    }
  }

  /** load loads the module with the host policy's defaults. */
  public static Toolerr load() {
    return load(Options.defaults());
  }

  /** load loads the module: its sha256 and ABI major checked, one instance started. */
  public static Toolerr load(Options options) {
    return new Toolerr(Engine.load(Objects.requireNonNull(options, "options")));
  }

  private static volatile Toolerr sharedInstance;

  /**
   * shared is the process-wide Toolerr, loaded on first use (a failed load is retried by the next
   * call); the builders' render() and Heal.heal use it.
   */
  public static Toolerr shared() {
    Toolerr t = sharedInstance;
    if (t == null) {
      synchronized (Toolerr.class) {
        t = sharedInstance;
        if (t == null) {
          t = load();
          t.shared = true;
          sharedInstance = t;
        }
      }
    }
    return t;
  }

  /** description is what the module's describe said at load: ABI version, exports, limits. */
  public Description description() {
    return description;
  }

  // ---- the raw path

  /**
   * call runs any export on a JSON request and returns the response text as the module wrote it.
   * The module answers an unknown export with INVALID_REQUEST listing the valid ones.
   */
  public String call(String export, String request) {
    return new String(call(export, request.getBytes(StandardCharsets.UTF_8)), StandardCharsets.UTF_8);
  }

  /** call runs any export on request bytes (not necessarily valid JSON) and returns the response bytes. */
  public byte[] call(String export, byte[] request) {
    return engine.call(Objects.requireNonNull(export, "export"), Objects.requireNonNull(request, "request"));
  }

  /** callJson sends value (maps, lists, records, strings, numbers, booleans) as the request and parses the answer. */
  public Object callJson(String export, Object value) {
    return Json.parse(call(export, encode(export, value)));
  }

  private <T> T call(String export, Object request, Class<T> response) {
    return Json.decode(Json.parse(call(export, encode(export, request))), response);
  }

  private static String encode(String export, Object request) {
    try {
      return Json.write(request);
    } catch (Json.Failure e) {
      throw new ToolerrException(ToolerrException.INVALID_REQUEST, export + ": " + e.getMessage(), e);
    }
  }

  // ---- rendering

  /** toolError starts a tool error: add to it, then render() it or throw its exception(). */
  public static ErrorBuilder toolError(String code, String message) {
    return new ErrorBuilder(code, message);
  }

  /** toolError renders a {@code <tool_error>}; only severity warning gives {@code isError: false}. */
  public CallToolResult toolError(ToolErrorRequest request) {
    return call("tool_error", request, CallToolResult.class);
  }

  /** simpleError renders a plain error; code may be null (no code attribute). */
  public CallToolResult simpleError(String message, String code) {
    return call("simple_error", new SimpleErrorRequest(message, code), CallToolResult.class);
  }

  /** requiredField renders MISSING_REQUIRED_FIELD for field. */
  public CallToolResult requiredField(String field) {
    return call("required_field", new RequiredFieldRequest(field), CallToolResult.class);
  }

  /** internalError renders INTERNAL_ERROR, prefixed [tool/action] or [tool]; both may be null. */
  public CallToolResult internalError(String message, String tool, String action) {
    return call("internal_error", new InternalErrorRequest(message, tool, action), CallToolResult.class);
  }

  /** rateLimited renders RATE_LIMITED; key may be null (the global key). */
  public CallToolResult rateLimited(double max, double windowSeconds, double retryAfter, String key) {
    return call("rate_limited", RateLimitedRequest.of(max, windowSeconds, retryAfter).withKey(key), CallToolResult.class);
  }

  /** serverBusy renders SERVER_BUSY for tool. */
  public CallToolResult serverBusy(String tool, double active, double queued) {
    return call("server_busy", new ServerBusyRequest(tool, active, queued), CallToolResult.class);
  }

  /**
   * unknownTool renders UNKNOWN_ACTION for a call to a tool the server does not have: tool is the
   * name called, tools the server's tools in its order (listed closest to tool first).
   */
  public CallToolResult unknownTool(String tool, List<String> tools) {
    return call("unknown_tool", new UnknownToolRequest(tool, tools), CallToolResult.class);
  }

  /** escape escapes text for "content" or "attribute" the way the envelopes do. */
  public String escape(String text, String context) {
    return call("escape", new EscapeRequest(text, context), EscapeResponse.class).text();
  }

  // ---- the stdio gate

  /** GATE_HEAD_BYTES is how much of a line over the request limit {@link #gate(long, byte[])} sends. */
  public static final int GATE_HEAD_BYTES = Abi.GATE_HEAD_BYTES;

  /**
   * gate is the module's stdio gate on one line a client sent, without its line feed, as its bytes
   * were read (abi/ABI.md, "The stdio gate"); a line over the request limit goes as {@link
   * #gate(long, byte[])}.
   */
  public GateResponse gate(byte[] line) {
    if (line.length > Options.MAX_REQUEST_BYTES) return gate(line.length, line);
    byte[] out = call("gate", line);
    // The verdict on almost every line, as the module writes it, without the general decoder.
    if (Arrays.equals(out, GATE_PASS)) return PASS;
    return Json.decode(Json.parse(new String(out, StandardCharsets.UTF_8)), GateResponse.class);
  }

  private static final byte[] GATE_PASS = "{\"verdict\":\"pass\"}".getBytes(StandardCharsets.US_ASCII);
  private static final GateResponse PASS = new GateResponse("pass", null, null, null);

  /**
   * gate is the gate on a line of size bytes too long to hold whole: head is its first bytes (at
   * most GATE_HEAD_BYTES of them are sent), enough for the gate to answer its request.
   */
  public GateResponse gate(long size, byte[] head) {
    int n = (int) Math.min(Math.min(head.length, GATE_HEAD_BYTES), Math.max(0, size - 1));
    byte[] prefix = (size + "\n").getBytes(StandardCharsets.UTF_8);
    byte[] request = new byte[prefix.length + n];
    System.arraycopy(prefix, 0, request, 0, prefix.length);
    System.arraycopy(head, 0, request, prefix.length, n);
    return Json.decode(Json.parse(new String(call("gate", request), StandardCharsets.UTF_8)), GateResponse.class);
  }

  /**
   * argumentsTooLarge is the gate's {@code <validation_error>} for a tool's arguments too large to
   * check beside their schema (what Heal answers when validate refuses them with
   * REQUEST_TOO_LARGE); size is their JSON text in bytes. The error measures the tools/call message
   * that carries them, so it is the same from every toolerr host.
   */
  public CallToolResult argumentsTooLarge(String tool, long size) {
    byte[] head = ("{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"tools/call\",\"params\":{\"name\":" + encode("gate", tool) + ",\"arguments\":")
        .getBytes(StandardCharsets.UTF_8);
    GateResponse verdict = gate(head.length + size + 2, head);
    if (!"answer".equals(verdict.verdict()) || verdict.response() == null
        || !(Json.parse(verdict.response()) instanceof Map<?, ?> answer) || answer.get("result") == null) {
      throw new ToolerrException(ToolerrException.INTERNAL, "arguments too large: the gate gave " + verdict);
    }
    return Json.decode(answer.get("result"), CallToolResult.class);
  }

  // ---- validation

  /** formatValidation renders validator output you already have (zod, pydantic or jsonschema issues). */
  public CallToolResult formatValidation(FormatValidationRequest request) {
    return call("format_validation", request, CallToolResult.class);
  }

  /**
   * validate checks args against a JSON Schema inside the module: empty when valid, else the
   * {@code <validation_error>} to return. schema and args are maps, lists and plain values (as an
   * MCP SDK hands them over) or {@link Json.Raw} text.
   */
  public Optional<CallToolResult> validate(String action, Object schema, Object args) {
    return validate(ValidateRequest.of(action, schema, args == null ? new Json.Raw("null") : args));
  }

  /** validate with contract awareness: a validation error of a changed tool says what changed. */
  public Optional<CallToolResult> validate(String action, Object schema, Object args, Contract contract) {
    return validate(ValidateRequest.of(action, schema, args == null ? new Json.Raw("null") : args).withContract(contract));
  }

  /** validate sends a whole ValidateRequest. */
  public Optional<CallToolResult> validate(ValidateRequest request) {
    byte[] out = call("validate", encode("validate", request).getBytes(StandardCharsets.UTF_8));
    // Valid arguments, the answer to almost every call, as the module writes it.
    if (Arrays.equals(out, VALID)) return Optional.empty();
    ValidateResponse r = Json.decode(Json.parse(new String(out, StandardCharsets.UTF_8)), ValidateResponse.class);
    return r.valid() ? Optional.empty() : Optional.of(r.result());
  }

  private static final byte[] VALID = "{\"valid\":true}".getBytes(StandardCharsets.US_ASCII);

  // ---- contracts

  /** contractLock writes the contract lockfile of tools: a tools array, a tools/list result or a lockfile. */
  public Lockfile contractLock(Object tools) {
    return call("contract_lock", new ContractLockRequest(tools), Lockfile.class);
  }

  /** contractDiff compares two contracts (each a tools array, a tools/list result or a lockfile). */
  public Diff contractDiff(Object before, Object after) {
    return call("contract_diff", new ContractDiffRequest(before, after), Diff.class);
  }

  // ---- the client's side

  /** parse reads the first envelope in text, if any. */
  public Optional<Envelope> parse(String text) {
    return envelope(callJson("parse", new ParseRequest(text, null)));
  }

  /** parse reads the first text block of result that holds an envelope, if any. */
  public Optional<Envelope> parse(CallToolResult result) {
    return envelope(callJson("parse", new ParseRequest(null, result)));
  }

  private static Optional<Envelope> envelope(Object response) {
    Object e = response instanceof Map<?, ?> m ? m.get("envelope") : null;
    if (!(e instanceof Map<?, ?> env)) return Optional.empty();
    return Optional.of(
        "validation_error".equals(env.get("kind"))
            ? Json.decode(env, ValidationEnvelope.class)
            : Json.decode(env, ToolErrorEnvelope.class));
  }

  /**
   * checkResult returns result when it is not an error (a warning included), and throws the
   * {@link ClientError} its envelope describes when it is.
   */
  public CallToolResult checkResult(CallToolResult result) {
    Object response = callJson("check_result", new CheckResultRequest(result));
    Object data = response instanceof Map<?, ?> m ? m.get("clientError") : null;
    if (data == null) return result;
    throw new ClientError(Json.decode(data, ClientErrorData.class));
  }

  /** text is the text of result's first text block ("" when there is none). */
  public static String text(CallToolResult result) {
    for (Content c : result.content()) {
      if ("text".equals(c.type()) && c.text() != null) return c.text();
    }
    return "";
  }

  /** close drops the idle instances; calls after it fail. The shared Toolerr is never closed. */
  @Override
  public void close() {
    if (!shared) engine.close();
  }

  /** idleInstances is how many instances wait for a call (for tests of the pool). */
  int idleInstances() {
    return engine.idleInstances();
  }
}
