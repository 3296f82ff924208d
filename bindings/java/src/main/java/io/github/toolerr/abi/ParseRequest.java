package io.github.toolerr.abi;

/** The request of parse (ABI 1.0): text, or result (the first text block holding an envelope). */
public record ParseRequest(String text, CallToolResult result) {}
