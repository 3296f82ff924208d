package io.github.toolerr;

import io.github.toolerr.abi.CallToolResult;
import io.github.toolerr.abi.ToolErrorRequest;

/**
 * ToolErrorException carries a tool error out of a handler: {@code throw Toolerr.toolError(code,
 * message).suggest(...).exception()}. A handler healed by {@link io.github.toolerr.mcp.Heal}
 * returns it as its {@code <tool_error>}, byte for byte as rendered; with severity warning, with
 * {@code isError: false}.
 */
public class ToolErrorException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final transient ToolErrorRequest request;

  public ToolErrorException(ErrorBuilder error) {
    this(error.request());
  }

  public ToolErrorException(ToolErrorRequest request) {
    super(request.code() + ": " + request.message());
    this.request = request;
  }

  /** request is the tool_error request to render. */
  public ToolErrorRequest request() {
    return request;
  }

  /** code is the error code. */
  public String code() {
    return request.code();
  }

  /** render asks host for the result. */
  public CallToolResult render(Toolerr host) {
    return host.toolError(request);
  }
}
