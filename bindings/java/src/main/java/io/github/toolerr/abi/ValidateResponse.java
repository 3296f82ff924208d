package io.github.toolerr.abi;

/** The response of validate (ABI 1.1): result is null when valid. */
public record ValidateResponse(boolean valid, CallToolResult result) {}
