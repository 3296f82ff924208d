package io.github.toolerr.abi;

import java.util.List;

/** The request of unknown_tool (ABI 1.5): the tool called and the server's tools, in its order. */
public record UnknownToolRequest(String tool, List<String> tools) {}
