package io.github.toolerr.abi;

/** The response of escape (ABI 1.0). */
public record EscapeResponse(String text) {}
