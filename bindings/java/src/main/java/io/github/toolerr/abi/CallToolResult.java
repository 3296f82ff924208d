package io.github.toolerr.abi;

import java.util.List;

/** An MCP CallToolResult as the module writes it: {"content":[{"type":"text","text":TEXT}],"isError":BOOL}. */
public record CallToolResult(List<Content> content, boolean isError) {}
