package io.github.toolerr.abi;

/** The request of check_result (ABI 1.3). */
public record CheckResultRequest(CallToolResult result) {}
