package heal;

import io.github.toolerr.mcp.Heal;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * heal-java: every tool of tests/heal/corpus.json on the official Java MCP SDK (a sync server over
 * stdio), each tool declared with its JSON Schema as published and answering "ok" to arguments that
 * reach it. The benchmarks (go run ./tests/bench) time a valid call of it, plain and healed.
 *
 * <p>java -cp bin/heal-java:bin/quickstart-java.jar heal.Server [--plain] [--corpus FILE]
 *
 * <p>--plain serves without toolerr: the SDK's stdio transport, and its own check of the arguments
 * against each tool's schema. Healed is what the binding's README teaches: Heal.stdio, the SDK's own
 * check off, and Heal.heal around the tools.
 */
public final class Server {
  public static void main(String[] args) throws Exception {
    boolean plain = false;
    String corpus = "tests/heal/corpus.json";
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--plain" -> plain = true;
        case "--corpus" -> corpus = args[++i];
        default -> throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    var mapper = McpJsonDefaults.getMapper();
    Map<?, ?> file = mapper.readValue(Files.readString(Path.of(corpus)), Map.class);
    List<SyncToolSpecification> tools = new ArrayList<>();
    for (Object entry : (List<?>) file.get("tools")) {
      Map<?, ?> tool = (Map<?, ?>) entry;
      String name = (String) tool.get("tool");
      String schema = mapper.writeValueAsString(tool.get("inputSchema"));
      tools.add(
          SyncToolSpecification.builder()
              .tool(Tool.builder(name, mapper, schema).description(name).build())
              .callHandler((exchange, request) -> CallToolResult.builder().addTextContent("ok").isError(false).build())
              .build());
    }
    if (plain) {
      McpServer.sync(new StdioServerTransportProvider(mapper)).serverInfo("heal-java", "1.0.0").tools(tools).build();
    } else {
      McpServer.sync(Heal.stdio(mapper))
          .serverInfo("heal-java", "1.0.0")
          .validateToolInputs(false)
          .tools(Heal.heal(tools.toArray(SyncToolSpecification[]::new)))
          .build();
    }
  }
}
