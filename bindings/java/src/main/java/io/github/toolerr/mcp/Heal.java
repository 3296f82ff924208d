package io.github.toolerr.mcp;

import io.github.toolerr.Toolerr;
import io.github.toolerr.ToolErrorException;
import io.github.toolerr.ToolerrException;
import io.github.toolerr.abi.CallToolResult;
import io.github.toolerr.abi.Content;
import io.github.toolerr.internal.Json;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.server.McpServerFeatures.AsyncToolSpecification;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import reactor.core.publisher.Mono;

/**
 * Heal makes the tools of a server built with the official Java MCP SDK ({@code
 * io.modelcontextprotocol.sdk:mcp} 2.x) answer every failure as an envelope the model can act on:
 *
 * <pre>{@code
 * McpServer.sync(Heal.stdio(mapper))          // the SDK's stdio transport behind the stdio gate
 *     .validateToolInputs(false)               // toolerr checks the arguments, inside the module
 *     .tools(Heal.heal(getInvoice, exportInvoices))
 *     .build();
 * }</pre>
 *
 * <ul>
 *   <li>arguments that fail the tool's {@code inputSchema} get the module's {@code
 *       <validation_error>} (its {@code validate}), and the handler is not called;
 *   <li>a thrown {@link ToolErrorException} arrives intact (with severity warning, {@code isError:
 *       false});
 *   <li>any other exception becomes {@code INTERNAL_ERROR} naming the tool, with the exception's
 *       message, as an {@code isError} result (the SDK would answer a JSON-RPC error the model
 *       never sees as a tool result);
 *   <li>the handler's own results pass untouched;
 *   <li>on {@link #stdio}, a call of a tool the server does not have gets the module's {@code
 *       UNKNOWN_ACTION} listing the healed tools, closest to the name called first, instead of the
 *       SDK's JSON-RPC error ({@link UnknownTool#SDK} keeps that).
 * </ul>
 *
 * <h2>Notes</h2>
 *
 * <ul>
 *   <li>The SDK checks arguments itself before any handler runs, with its own message ("Tool (x)
 *       input validation failed: ..."), unless the server is built with {@code
 *       validateToolInputs(false)}; turn that off, or its message wins.
 *   <li>Supported SDK: {@link #SUPPORTED} (tested with {@link #TESTED}); heal refuses any other with
 *       {@code UNSUPPORTED_MCP}, naming the version found.
 * </ul>
 */
public final class Heal {
  private Heal() {}

  /** SUPPORTED is the range of mcp-core versions heal accepts. */
  public static final String SUPPORTED = ">=2.0.0 <3";
  /** TESTED is the mcp-core version this binding's tests run. */
  public static final String TESTED = "2.1.0";

  /**
   * stdio is the SDK's stdio transport behind the process-wide module's stdio gate ({@link
   * GatedStdio}): use it instead of {@code new StdioServerTransportProvider(mapper)}, so that no
   * line a client sends ends the session and argument trouble of any kind reaches the model as a
   * {@code <validation_error>}.
   */
  public static StdioServerTransportProvider stdio(McpJsonMapper mapper) {
    return stdio(mapper, UnknownTool.ENVELOPE);
  }

  /** stdio is {@link #stdio(McpJsonMapper)} with unknownTool saying how a call of a tool the server does not have is answered. */
  public static StdioServerTransportProvider stdio(McpJsonMapper mapper, UnknownTool unknownTool) {
    return GatedStdio.provider(Toolerr.shared(), mapper, System.in, System.out, unknownTool);
  }

  /**
   * UnknownTool says how a healed server on {@link #stdio} answers a call of a tool it does not
   * have.
   */
  public enum UnknownTool {
    /**
     * The module's UNKNOWN_ACTION as a tool result ({@code isError: true}), naming the tool called
     * and listing the tools healed on the host, closest to that name first (the default). A tool
     * registered without heal is not listed.
     */
    ENVELOPE,
    /** The SDK's own answer: JSON-RPC error -32602 "Unknown tool: invalid_tool_name". */
    SDK
  }

  /** The names of the tools healed on each host, in the order they were healed. */
  private static final Map<Toolerr, Set<String>> HEALED = Collections.synchronizedMap(new WeakHashMap<>());

  private static void remember(Toolerr host, McpSchema.Tool tool) {
    HEALED.computeIfAbsent(host, h -> Collections.synchronizedSet(new LinkedHashSet<>())).add(tool.name());
  }

  /** healedTools is the names of the tools healed on host so far, in the order they were healed. */
  static List<String> healedTools(Toolerr host) {
    Set<String> names = HEALED.get(host);
    if (names == null) return List.of();
    synchronized (names) {
      return List.copyOf(names);
    }
  }

  /** heal heals sync tool specifications with the process-wide module. */
  public static List<SyncToolSpecification> heal(SyncToolSpecification... tools) {
    return heal(Toolerr.shared(), List.of(tools));
  }

  /** heal heals async tool specifications with the process-wide module. */
  public static List<AsyncToolSpecification> heal(AsyncToolSpecification... tools) {
    return healAsync(Toolerr.shared(), List.of(tools));
  }

  /** heal heals sync tool specifications with host. */
  public static List<SyncToolSpecification> heal(Toolerr host, List<SyncToolSpecification> tools) {
    return healEach(host, tools, SyncToolSpecification::tool, spec -> healed(host, spec));
  }

  /** healAsync heals async tool specifications with host. */
  public static List<AsyncToolSpecification> healAsync(Toolerr host, List<AsyncToolSpecification> tools) {
    return healEach(host, tools, AsyncToolSpecification::tool, spec -> healed(host, spec));
  }

  /**
   * healEach refuses an unsupported SDK, then heals each of specs in order, remembering its tool
   * on host.
   */
  private static <T> List<T> healEach(
      Toolerr host, List<T> specs, Function<T, McpSchema.Tool> tool, UnaryOperator<T> heal) {
    checkSdk();
    List<T> out = new ArrayList<>(specs.size());
    for (T spec : specs) {
      remember(host, tool.apply(spec));
      out.add(heal.apply(spec));
    }
    return out;
  }

  /** healed is spec with its handler healed on host. */
  private static SyncToolSpecification healed(Toolerr host, SyncToolSpecification spec) {
    Guard guard = new Guard(host, spec.tool());
    var handler = spec.callHandler();
    return new SyncToolSpecification(
        spec.tool(),
        (exchange, request) -> {
          Optional<McpSchema.CallToolResult> refused = guard.check(request);
          if (refused.isPresent()) return refused.get();
          try {
            return handler.apply(exchange, request);
          } catch (Throwable e) { // a checked exception thrown sneakily included
            if (e instanceof VirtualMachineError vm) throw vm;
            return guard.failure(e);
          }
        });
  }

  /** healed is spec with its handler healed on host. */
  private static AsyncToolSpecification healed(Toolerr host, AsyncToolSpecification spec) {
    Guard guard = new Guard(host, spec.tool());
    var handler = spec.callHandler();
    return new AsyncToolSpecification(
        spec.tool(),
        (exchange, request) ->
            Mono.defer(() -> guard.check(request).map(Mono::just).orElseGet(() -> handler.apply(exchange, request)))
                .onErrorResume(e -> !(e instanceof VirtualMachineError), e -> Mono.just(guard.failure(e))));
  }

  /**
   * Guard is what a healed tool's handler runs around the tool's own: the check of the arguments
   * and the rendering of what the handler threw. schema is the tool's inputSchema as check sends
   * it: its JSON text, written once when the tool is healed (as the SDK listed it then), or null
   * for a tool without one; a schema that cannot be written (a number JSON cannot hold) stays the
   * map, and each call reports it.
   */
  private record Guard(Toolerr host, McpSchema.Tool tool, Object schema) {
    Guard(Toolerr host, McpSchema.Tool tool) {
      this(host, tool, schemaOf(tool.inputSchema()));
    }

    private static Object schemaOf(Map<String, Object> schema) {
      if (schema == null || schema.isEmpty()) return null;
      try {
        return new Json.Raw(Json.write(schema));
      } catch (Json.Failure e) {
        return schema;
      }
    }

    /** check validates the arguments in the module: a result to answer instead of the handler, or empty. */
    Optional<McpSchema.CallToolResult> check(McpSchema.CallToolRequest request) {
      if (schema == null) return Optional.empty();
      Map<String, Object> args = request.arguments() == null ? Map.of() : request.arguments();
      try {
        return host.validate(tool.name(), schema, args).map(Heal::toMcp);
      } catch (ToolerrException e) {
        if (ToolerrException.REQUEST_TOO_LARGE.equals(e.code())) {
          // Arguments that fit a message but not a check beside their schema: too large, not a
          // failure of the server.
          long size = Json.write(args).getBytes(StandardCharsets.UTF_8).length;
          return Optional.of(toMcp(host.argumentsTooLarge(tool.name(), size)));
        }
        return Optional.of(
            toMcp(host.internalError("the arguments could not be checked: " + e.getMessage(), tool.name(), null)));
      }
    }

    /** failure renders what the handler threw. */
    McpSchema.CallToolResult failure(Throwable e) {
      return Heal.failure(host, tool, e);
    }
  }

  /** failure renders what a handler threw. */
  private static McpSchema.CallToolResult failure(Toolerr host, McpSchema.Tool tool, Throwable e) {
    try {
      if (e instanceof ToolErrorException t) return toMcp(t.render(host));
      String message = e.getMessage();
      if (message == null || message.isEmpty()) message = e.getClass().getSimpleName();
      return toMcp(host.internalError(message, tool.name(), null));
    } catch (ToolerrException renderFailure) {
      // The module refused to render it (a message over its limits): say so, still as a result.
      return toMcp(
          host.internalError(
              "the failure could not be rendered: " + renderFailure.getMessage(), tool.name(), null));
    }
  }

  /** toMcp converts the module's CallToolResult into the SDK's. */
  @SuppressWarnings("deprecation") // TextContent(String): 2.1 deprecates it for a builder; kept for all of 2.x
  public static McpSchema.CallToolResult toMcp(CallToolResult result) {
    List<McpSchema.Content> content = new ArrayList<>(result.content().size());
    for (Content c : result.content()) content.add(new McpSchema.TextContent(c.text()));
    return McpSchema.CallToolResult.builder().content(content).isError(result.isError()).build();
  }

  /** fromMcp converts the SDK's CallToolResult (its text blocks) into the module's, for parse and checkResult. */
  public static CallToolResult fromMcp(McpSchema.CallToolResult result) {
    List<Content> content = new ArrayList<>();
    for (McpSchema.Content c : result.content()) {
      if (c instanceof McpSchema.TextContent t) content.add(new Content("text", t.text()));
    }
    return new CallToolResult(content, Boolean.TRUE.equals(result.isError()));
  }

  private static volatile boolean sdkChecked;

  /** checkSdk refuses an mcp-core outside {@link #SUPPORTED}. */
  private static void checkSdk() {
    if (sdkChecked) return;
    checkVersion(sdkVersion());
    sdkChecked = true;
  }

  /** sdkVersion is the version of the mcp-core on the classpath, or null when it does not say. */
  static String sdkVersion() {
    String v = McpSchema.class.getPackage().getImplementationVersion();
    if (v != null) return v;
    try (InputStream in =
        McpSchema.class.getResourceAsStream("/META-INF/maven/io.modelcontextprotocol.sdk/mcp-core/pom.properties")) {
      if (in == null) return null;
      Properties p = new Properties();
      p.load(in);
      return p.getProperty("version");
    } catch (IOException e) {
      return null;
    }
  }

  /** checkVersion throws UNSUPPORTED_MCP unless version is 2.x. */
  static void checkVersion(String version) {
    String major = version == null ? "" : version.split("[.-]", 2)[0];
    if (!major.equals("2")) {
      throw new ToolerrException(
          ToolerrException.UNSUPPORTED_MCP,
          "toolerr: heal supports io.modelcontextprotocol.sdk:mcp-core "
              + SUPPORTED
              + " (tested with "
              + TESTED
              + "), found "
              + (version == null ? "a version that does not say which it is" : version));
    }
  }
}
