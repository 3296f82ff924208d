package billing;

import io.github.toolerr.Toolerr;
import io.github.toolerr.mcp.Heal;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.util.Map;

/**
 * The quickstart: an MCP server written the way the official Java MCP SDK (mcp 2.x) teaches, plus
 * toolerr's one call, Heal.heal(...) around its tool specifications: arguments that fail the input
 * schema become a validation error naming the field, the thrown NOT_FOUND arrives intact, and the
 * exporter's exception becomes INTERNAL_ERROR naming the tool. On Heal.stdio, a call of a tool the
 * server does not have (billing.refund_invoice) gets UNKNOWN_ACTION listing its tools, closest first,
 * instead of the SDK's JSON-RPC error.
 *
 * <p>Run it from the repository root (it speaks MCP on stdin/stdout): java -jar
 * bin/quickstart-java.jar (bash examples/java/build.sh builds it).
 */
public final class Quickstart {
  private static final Map<String, String> INVOICES =
      Map.of(
          "inv_001", "{\"id\":\"inv_001\",\"status\":\"open\",\"amount\":120.5,\"currency\":\"EUR\"}",
          "inv_002", "{\"id\":\"inv_002\",\"status\":\"paid\",\"amount\":75,\"currency\":\"USD\"}",
          "inv_003", "{\"id\":\"inv_003\",\"status\":\"open\",\"amount\":9.99,\"currency\":\"USD\"}");

  public static void main(String[] args) {
    var mapper = McpJsonDefaults.getMapper();
    var getInvoice =
        SyncToolSpecification.builder()
            .tool(
                Tool.builder("billing.get_invoice", mapper,
                        """
                        {"type": "object", "additionalProperties": false, "required": ["id"],
                         "properties": {"id": {"type": "string", "pattern": "^inv_[0-9]{3}$",
                                               "description": "the invoice ID, such as inv_001"}}}""")
                    .description("Get one invoice by ID")
                    .build())
            .callHandler(
                (exchange, request) -> {
                  String id = (String) request.arguments().get("id");
                  String invoice = INVOICES.get(id);
                  if (invoice == null) {
                    throw Toolerr.toolError("NOT_FOUND", "No invoice with that ID")
                        .suggest("List invoices first, then retry with a real ID")
                        .actions("billing.list_invoices")
                        .detail("requestedId", id)
                        .exception();
                  }
                  return CallToolResult.builder().addTextContent(invoice).isError(false).build();
                })
            .build();
    var exportInvoices =
        SyncToolSpecification.builder()
            .tool(Tool.builder("billing.export_invoices", mapper, "{\"type\": \"object\"}").description("Export every invoice").build())
            .callHandler(
                (exchange, request) -> {
                  throw new IllegalStateException("exporter backend unavailable"); // stands for a dependency that fails
                })
            .build();

    McpServer.sync(Heal.stdio(mapper)) // the SDK's stdio transport, behind toolerr's stdio gate
        .serverInfo("billing", "1.0.0")
        .validateToolInputs(false) // toolerr checks the arguments, inside the module
        .tools(Heal.heal(getInvoice, exportInvoices)) // the one call
        .build();
  }
}
